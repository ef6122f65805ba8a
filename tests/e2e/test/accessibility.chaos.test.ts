// axe-core's WCAG 2.1 AA audit of every screen and every dialog, in every language: no serious or
// critical violation anywhere. The screens are a table: a new screen or dialog is one more row saying
// who sees it, where, and how to open it.
import { LANGUAGES, type Language } from '@omc/contracts';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { audit, BLOCKING, describeFindings, type Finding } from './axe';
import { launchBrowser, VIEWPORTS } from './browser';
import {
  clickButton,
  loginThroughUi,
  registerThroughUi,
  serverCount,
  setPayoutEmailThroughUi,
  uniqueName,
  until,
} from './players';

const gatewayUrl = inject('gatewayUrl');
const admin = inject('admin');

/** Who looks at the screen: nobody signed in (a guest is one who chose to play so), a player, the admin. */
type Viewer = 'visitor' | 'player' | 'admin';
type Translate = (key: string, values?: Record<string, string>) => string;

interface Screen {
  name: string;
  viewer: Viewer;
  path: string;
  /** Waits until the screen shows its content and opens what is to be audited (a dialog, a mode). */
  open: (page: Page, t: Translate, who: { username: string }) => Promise<void>;
}

const heading = (name: string) => (page: Page) => page.getByRole('heading', { name, exact: true }).waitFor();
const button = (page: Page, name: string) => page.getByRole('button', { name, exact: true }).first();
/** Opens a dialog with the button named `opener` and waits for the dialog titled `title`. */
async function openDialog(page: Page, opener: string, title: string): Promise<void> {
  await button(page, opener).click();
  await page.getByRole('dialog', { name: title }).waitFor();
}
const gameReady = (page: Page, t: Translate) =>
  page.getByRole('button', { name: t('game.clickButtonLabel') }).waitFor();
/** A guest lives in the page's memory only: every load starts from the welcome screen. */
async function asGuest(page: Page, t: Translate): Promise<void> {
  await button(page, t('welcome.guest')).click();
  await gameReady(page, t);
}
const profileReady = (page: Page, _t: Translate, who: { username: string }) =>
  page.locator('h1', { hasText: who.username }).waitFor();

const SCREENS: Screen[] = [
  { name: 'welcome', viewer: 'visitor', path: '/', open: (page, t) => heading(t('app.title'))(page) },
  {
    name: 'login dialog',
    viewer: 'visitor',
    path: '/',
    open: (page, t) => openDialog(page, t('welcome.login'), t('login.title')),
  },
  {
    name: 'register dialog',
    viewer: 'visitor',
    path: '/',
    open: (page, t) => openDialog(page, t('welcome.register'), t('register.title')),
  },
  {
    name: 'forgot password dialog',
    viewer: 'visitor',
    path: '/',
    open: async (page, t) => {
      await openDialog(page, t('welcome.login'), t('login.title'));
      await openDialog(page, t('login.forgotPassword'), t('forgotPassword.title'));
    },
  },
  {
    name: 'reset password page',
    viewer: 'visitor',
    path: '/reset-password?token=from-the-mail',
    open: (page, t) => heading(t('resetPassword.title'))(page),
  },
  {
    name: 'verify email page (a link no longer valid)',
    viewer: 'visitor',
    path: '/verify-email?token=no-longer-valid',
    open: async (page, t) => {
      await heading(t('verifyEmail.title'))(page);
      await page
        .getByRole('alert')
        .filter({ hasText: t('verifyEmail.invalid') })
        .waitFor();
    },
  },
  { name: 'game (guest)', viewer: 'visitor', path: '/', open: asGuest },
  {
    name: 'login dialog from the game',
    viewer: 'visitor',
    path: '/',
    open: async (page, t) => {
      await asGuest(page, t);
      await openDialog(page, t('welcome.login'), t('login.title'));
    },
  },
  {
    name: 'winners',
    viewer: 'visitor',
    path: '/winners',
    open: (page, t) => heading(t('winners.title'))(page),
  },
  {
    name: 'winners (random winner)',
    viewer: 'visitor',
    path: '/winners',
    open: async (page, t) => {
      await heading(t('winners.title'))(page);
      await page.getByRole('table').waitFor();
      await button(page, t('winners.showRandom')).click();
      await button(page, t('winners.showTable')).waitFor();
    },
  },
  {
    name: 'game (player, winnings pending)',
    viewer: 'player',
    path: '/game',
    open: async (page, t) => {
      await gameReady(page, t);
      await page.getByRole('region', { name: t('winnings.title') }).waitFor();
    },
  },
  {
    name: 'buy dialog',
    viewer: 'player',
    path: '/game',
    open: async (page, t) => {
      await gameReady(page, t);
      await openDialog(page, t('game.buyClicks'), t('purchaseClicksModal.title'));
      await page.getByRole('dialog').getByRole('note').waitFor();
    },
  },
  {
    // The player has not verified their email: the dialog says to verify first, with the link to send
    // again, and the confirmation waits; that is what is audited here.
    name: 'payout confirmation dialog (email not verified)',
    viewer: 'player',
    path: '/game',
    open: async (page, t) => {
      await gameReady(page, t);
      await openDialog(page, t('winnings.transfer'), t('winnings.confirmTitle'));
      await page
        .getByRole('dialog')
        .getByRole('button', { name: t('verifyBanner.resend') })
        .waitFor();
    },
  },
  {
    name: 'payment method dialog',
    viewer: 'player',
    path: '/game',
    open: async (page, t) => {
      await gameReady(page, t);
      await openDialog(page, t('winnings.transfer'), t('winnings.confirmTitle'));
      await openDialog(page, t('winnings.edit'), t('paymentMethod.title'));
    },
  },
  { name: 'profile (player)', viewer: 'player', path: '/profile', open: profileReady },
  ...(
    [
      ['change email dialog', 'profile.changeEmail', 'changeEmail.title'],
      ['change password dialog', 'profile.changePassword', 'changePassword.title'],
      ['change username dialog', 'profile.changeUsername', 'changeUsername.title'],
      ['delete account dialog', 'profile.deleteAccount', 'deleteAccount.title'],
    ] as const
  ).map(([name, opener, title]): Screen => ({
    name,
    viewer: 'player',
    path: '/profile',
    open: async (page, t, who) => {
      await profileReady(page, t, who);
      await openDialog(page, t(opener), t(title));
    },
  })),
  {
    // A link that is not (or no longer) valid: the refusal is read out as an alert.
    name: 'confirm new email (refused link)',
    viewer: 'visitor',
    path: '/confirm-email?token=not-a-mailed-token',
    open: async (page, t) => {
      await heading(t('confirmEmail.title'))(page);
      await page
        .getByRole('alert')
        .filter({ hasText: t('confirmEmail.invalid') })
        .waitFor();
    },
  },
  {
    name: 'undo email change',
    viewer: 'visitor',
    path: '/undo-email-change?token=not-a-mailed-token',
    open: async (page, t) => {
      await heading(t('undoEmailChange.title'))(page);
      await button(page, t('undoEmailChange.submit')).waitFor();
    },
  },
  { name: 'game (admin)', viewer: 'admin', path: '/game', open: gameReady },
  {
    name: 'profile (admin)',
    viewer: 'admin',
    path: '/profile',
    open: async (page, t, who) => {
      await profileReady(page, t, who);
      await page.getByTestId('admin-balance').filter({ hasText: /\d/ }).waitFor();
    },
  },
  {
    name: 'admin payout dialog',
    viewer: 'admin',
    path: '/profile',
    open: async (page, t, who) => {
      await profileReady(page, t, who);
      await page.getByTestId('admin-balance').filter({ hasText: /[1-9]/ }).waitFor();
      // The payment method dialog while the admin has no PayPal email on file, else the confirmation.
      await button(page, t('profile.adminCollect')).click();
      await page.getByRole('dialog').waitFor();
    },
  },
  {
    name: 'role manager',
    viewer: 'admin',
    path: '/admin/roles',
    open: async (page, t) => {
      await heading(t('roleManager.title'))(page);
      await page.locator('option', { hasText: admin.username }).waitFor({ state: 'attached' });
    },
  },
  {
    name: 'players',
    viewer: 'admin',
    path: '/admin/players',
    open: async (page, t) => {
      await heading(t('players.title'))(page);
      await page.getByRole('rowheader', { name: admin.username }).first().waitFor();
    },
  },
  {
    name: 'player suspension form and audit trail',
    viewer: 'admin',
    path: '/admin/players',
    open: async (page, t) => {
      await heading(t('players.title'))(page);
      await button(page, t('players.manage', { username: admin.username }))
        .first()
        .click();
      await heading(t('players.manageTitle', { username: admin.username }))(page);
    },
  },
  {
    name: 'player purchases and payouts',
    viewer: 'admin',
    path: '/admin/players',
    open: async (page, t) => {
      await heading(t('players.title'))(page);
      await page
        .getByRole('link', { name: t('money.link', { username: admin.username }), exact: true })
        .first()
        .click();
      await heading(t('money.title', { username: admin.username }))(page);
      await page.getByRole('table', { name: t('money.payoutsCaption') }).waitFor();
    },
  },
  {
    name: 'audit log',
    viewer: 'admin',
    path: '/admin/audit',
    open: async (page, t) => {
      await heading(t('audit.title'))(page);
      await page.getByRole('table').waitFor();
    },
  },
];

const root = resolve(import.meta.dirname, '..', '..', '..');
function translator(language: Language): Translate {
  const strings = JSON.parse(
    readFileSync(join(root, 'web', 'src', 'i18n', `${language}.json`), 'utf8'),
  ) as object;
  return (key, values = {}) => {
    const text = key
      .split('.')
      .reduce<unknown>((node, part) => (node as Record<string, unknown>)?.[part], strings);
    if (typeof text !== 'string') throw new Error(`no ${language} text for ${key}`);
    return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] ?? '');
  };
}

let browser: Browser;
const viewers = new Map<Viewer, { context: BrowserContext; page: Page; username: string }>();

async function newViewer(viewer: Viewer): Promise<{ context: BrowserContext; page: Page }> {
  // Reduced motion: dialogs and fades settle at once, so colours are measured in their final state.
  const context = await browser.newContext({
    baseURL: gatewayUrl,
    viewport: VIEWPORTS.desktop,
    locale: 'es-ES',
    reducedMotion: 'reduce',
  });
  context.setDefaultTimeout(15_000);
  const page = await context.newPage();
  page.on('pageerror', (error) => console.error(`[browser ${viewer}] ${error.message}`));
  return { context, page };
}

/** Findings on the passing messages (welcome message, purchase and winner notices), seen once in Spanish. */
const noticeFindings: Finding[] = [];

/** A player who bought a pack (so the admin's pot has money) and won a round (so winnings are pending). */
async function playerWithWinnings(page: Page, username: string): Promise<void> {
  await registerThroughUi(page, username);
  await page.getByText('Tu cuenta está lista. ¡A clicar!').waitFor();
  noticeFindings.push(...(await audit(page, 'game with the welcome message', 'es')));
  await button(page, 'Comprar clics').click();
  const dialog = page.getByRole('dialog', { name: 'Comprar clics' });
  await dialog.getByRole('note').waitFor();
  await dialog.getByText('100 clics').click();
  await dialog.getByLabel('Tarjeta de prueba (aprobada)').check();
  await dialog.getByRole('button', { name: /^Pagar/ }).click();
  await dialog.waitFor({ state: 'detached' });
  await page.getByTestId('notice-success').waitFor();
  noticeFindings.push(...(await audit(page, 'game with the purchase notice', 'es')));
  await until(
    () => page.getByTestId('free-clicks').textContent(),
    (text) => Number((text ?? '').replace(/\D/g, '')) >= 100,
  );
  // Play the round to its end: the counter is back at zero afterwards, as the other suites expect.
  const missing = inject('roundTarget') - (await serverCount(page));
  for (let i = 0; i < missing; i++) await clickButton(page).click({ force: true, noWaitAfter: true });
  await page.getByTestId('notice-winner').filter({ hasText: username }).waitFor({ timeout: 30_000 });
  noticeFindings.push(...(await audit(page, 'game with the winner notice', 'es')));
  await page.getByText(/en ganancias esperándote/).waitFor({ timeout: 30_000 });
  // A PayPal email on file (confirmed from the link mailed to the account's email), so both the payout
  // confirmation and the payment method can be opened.
  await setPayoutEmailThroughUi(page, inject('mailUrl'), { username });
  await page.goto('/game');
  await button(page, 'Transferir').waitFor();
}

beforeAll(async () => {
  browser = await launchBrowser();
  const visitor = await newViewer('visitor');
  await visitor.page.goto('/');
  viewers.set('visitor', { ...visitor, username: '' });

  const player = await newViewer('player');
  const username = uniqueName('axe');
  await playerWithWinnings(player.page, username);
  viewers.set('player', { ...player, username });

  const adminViewer = await newViewer('admin');
  await loginThroughUi(adminViewer.page, admin.username, admin.password);
  viewers.set('admin', { ...adminViewer, username: admin.username });
}, 180_000);

afterAll(async () => {
  await browser?.close();
});

/** Fails with one readable line per serious or critical finding; prints the others. */
function expectNoBlocking(findings: Finding[], label: string): void {
  const blocking = findings.filter((f) => BLOCKING.includes(f.impact));
  const other = findings.filter((f) => !BLOCKING.includes(f.impact));
  if (other.length > 0) console.warn(`axe, ${label}, not blocking:\n${describeFindings(other)}`);
  expect(blocking.length, `axe found serious or critical violations:\n${describeFindings(blocking)}`).toBe(0);
}

describe('accessibility (axe-core, WCAG 2.1 AA)', () => {
  it('the welcome message and the purchase and winner notices have no serious or critical violation', () => {
    expectNoBlocking(noticeFindings, 'notices');
  });

  it.each(LANGUAGES)(
    'every screen and dialog in %s has no serious or critical violation',
    async (language) => {
      const t = translator(language);
      const findings: Finding[] = [];
      for (const viewer of viewers.values())
        await viewer.page.evaluate((lang) => window.localStorage.setItem('language', lang), language);
      // A page is loaded again only when the screen lives elsewhere or the last one changed more than a
      // dialog (closed again with Escape, as a keyboard user would).
      const at = new Map<Viewer, string>();
      for (const screen of SCREENS) {
        const { page, username } = viewers.get(screen.viewer)!;
        if (at.get(screen.viewer) !== screen.path) {
          await page.goto(screen.path);
          await page.waitForFunction((lang) => document.documentElement.lang === lang, language);
        }
        at.delete(screen.viewer);
        await screen.open(page, t, { username }).catch((error: Error) => {
          throw new Error(`${screen.name} (${language}) did not open: ${error.message}`);
        });
        findings.push(...(await audit(page, screen.name, language)));
        const dialog = page.getByRole('dialog');
        if ((await dialog.count()) > 0 && new URL(page.url()).pathname === screen.path) {
          await page.keyboard.press('Escape');
          await dialog.waitFor({ state: 'detached' });
          at.set(screen.viewer, screen.path);
        }
      }
      expectNoBlocking(findings, language);
    },
    180_000,
  );
});
