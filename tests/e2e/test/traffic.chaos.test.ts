// What a real player costs the servers: one browser session through the web app (sign in, watch, buy,
// play to a win, click steadily, collect), every API request it sends recorded against the action that
// caused it. The mix is asserted, so it cannot drift unnoticed, and written to
// test-artifacts/e2e/traffic-mix.json (the figures docs/performance.md quotes).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ARTIFACTS, launchBrowser, newPlayer } from './browser';
import {
  clickButton,
  registerThroughUi,
  shownFreeClicks,
  uniqueName,
  until,
  setPayoutEmailThroughUi,
  settleSales,
  verifyThroughMail,
} from './players';

const gatewayUrl = inject('gatewayUrl');
const roundTarget = inject('roundTarget');
const mailUrl = inject('mailUrl');
const emulatorUrl = inject('emulatorUrl');

/** A player's pace: two presses a second. */
const PRESS_EVERY_MS = 500;
const STEADY_CLICKS = 30;

type Action = 'sign in' | 'watch' | 'buy' | 'win' | 'steady play' | 'collect';

interface Recorded {
  action: Action;
  route: string;
}

let browser: Browser;
let player: { context: BrowserContext; page: Page };
let action: Action = 'sign in';
const requests: Recorded[] = [];
const minutes: Partial<Record<Action, number>> = {};
const username = uniqueName('mix');

/** The round's counter, asked from outside the page so the page's own traffic stays the player's. */
async function serverCount(): Promise<number> {
  const response = await fetch(`${gatewayUrl}/api/game/state`);
  return ((await response.json()) as { gameState: { globalClicks: number } }).gameState.globalClicks;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function during(name: Action, run: () => Promise<void>): Promise<void> {
  action = name;
  const started = Date.now();
  await run();
  minutes[name] = (minutes[name] ?? 0) + (Date.now() - started) / 60_000;
}

const inAction = (name: Action) => requests.filter((r) => r.action === name);
const count = (list: Recorded[], route: string) => list.filter((r) => r.route === route).length;

beforeAll(async () => {
  browser = await launchBrowser();
  player = await newPlayer(browser, gatewayUrl, 'phone');
  player.page.on('request', (request) => {
    const url = new URL(request.url());
    if (!url.pathname.startsWith('/api/')) return;
    requests.push({ action, route: `${request.method()} ${url.pathname}` });
  });
});

afterAll(async () => {
  await browser?.close();
});

describe("a player's traffic, request by request", () => {
  it('costs one API request per click and reads the profile only when it can have changed', async () => {
    const { page } = player;
    await during('sign in', () => registerThroughUi(page, username));

    await during('watch', async () => {
      await until(
        () => shownFreeClicks(page),
        (v) => v === '3',
      );
      await pause(5_000);
    });

    await during('buy', async () => {
      await page.getByRole('button', { name: 'Comprar clics' }).click();
      const dialog = page.getByRole('dialog', { name: 'Comprar clics' });
      await dialog.getByText('500 clics').click();
      await dialog.getByLabel('Tarjeta de prueba (aprobada)').check();
      await dialog.getByRole('button', { name: /^Pagar/ }).click();
      await dialog.waitFor({ state: 'detached' });
      await until(
        () => shownFreeClicks(page),
        (v) => v === '503',
      );
    });

    await during('win', async () => {
      const missing = roundTarget - (await serverCount());
      for (let i = 0; i < missing; i++) await clickButton(page).click({ force: true, noWaitAfter: true });
      await page.getByTestId('notice-winner').filter({ hasText: username }).waitFor({ timeout: 30_000 });
      // The round closed: the purchased clicks left expired with it; the granted clicks (spent last: the
      // sign-up grant and a milestone's reward if the player reached it) remain.
      await until(
        () => shownFreeClicks(page),
        (v) => Number(v) < 100,
      );
    });
    const granted = Number(await shownFreeClicks(page));

    // A new round: the player buys clicks for it (counted as buying) and plays steadily with them.
    await during('buy', async () => {
      await page.getByRole('button', { name: 'Comprar clics' }).click();
      const dialog = page.getByRole('dialog', { name: 'Comprar clics' });
      await dialog.getByText('100 clics').click();
      await dialog.getByLabel('Tarjeta de prueba (aprobada)').check();
      await dialog.getByRole('button', { name: /^Pagar/ }).click();
      await dialog.waitFor({ state: 'detached' });
      await until(
        () => shownFreeClicks(page),
        (v) => v === String(granted + 100),
      );
    });
    await pause(2_000);

    await during('steady play', async () => {
      for (let i = 0; i < STEADY_CLICKS; i++) {
        const started = Date.now();
        await clickButton(page).click({ force: true, noWaitAfter: true });
        await pause(Math.max(0, PRESS_EVERY_MS - (Date.now() - started)));
      }
      await pause(1_500);
    });

    await during('collect', async () => {
      await setPayoutEmailThroughUi(page, mailUrl, { username });
      await verifyThroughMail(page, mailUrl, `${username}@example.com`);
      // The player bought clicks before winning: the collect waits until Braintree settled them.
      await settleSales(emulatorUrl);
      await page.goto('/game');
      await page.getByRole('button', { name: 'Transferir' }).click();
      const confirm = page.getByRole('dialog', { name: 'Confirmar la transferencia' });
      await confirm.getByRole('button', { name: 'Confirmar' }).click();
      await page.getByTestId('notice-success').filter({ hasText: 'Pago enviado' }).waitFor();
    });

    const steady = inAction('steady play');
    const steadyClicks = count(steady, 'POST /api/game/click');
    const steadyProfiles = count(steady, 'GET /api/user/profile');
    const mix = {
      steadyPlay: {
        clicks: steadyClicks,
        requests: steady.length,
        requestsPerClick: steady.length / steadyClicks,
        profileReads: steadyProfiles,
        minutes: minutes['steady play'],
        profileReadsPerMinute: steadyProfiles / minutes['steady play']!,
      },
      session: {
        clicks: count(requests, 'POST /api/game/click'),
        requests: requests.length,
        requestsPerClick: requests.length / count(requests, 'POST /api/game/click'),
      },
      byAction: Object.fromEntries(
        (['sign in', 'watch', 'buy', 'win', 'steady play', 'collect'] as const).map((name) => {
          const routes: Record<string, number> = {};
          for (const r of inAction(name)) routes[r.route] = (routes[r.route] ?? 0) + 1;
          return [name, { minutes: minutes[name], routes }];
        }),
      ),
    };
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, 'traffic-mix.json'), `${JSON.stringify(mix, null, 2)}\n`);
    console.log(JSON.stringify(mix, null, 2));

    expect(steadyClicks).toBe(STEADY_CLICKS);
    expect(mix.steadyPlay.requestsPerClick).toBeLessThanOrEqual(1.05);
    expect(mix.steadyPlay.profileReadsPerMinute).toBeLessThanOrEqual(2);
    // Racing for the pot (clicks as fast as the button takes them): a click's answer carries the balance,
    // so the profile is read for the win (the winnings, the expired purchases), not per click.
    const win = inAction('win');
    expect(count(win, 'POST /api/game/click')).toBeGreaterThan(0);
    expect(count(win, 'GET /api/user/profile')).toBeLessThanOrEqual(2);
  });
});
