// An account people can trust: a player who forgot their password gets the link by mail (read from the
// development mail catcher, as a player reads their inbox), chooses a new one, signs in, ends the
// session another device still holds, and changes their email, confirmed from the mail to the new
// address. `npm test` tells it in Spanish, the default (account.e2e.test.ts); `npm run test:chaos` in
// English (account.chaos.test.ts).
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { linkIn, mailsTo, type CaughtMail } from '@omc/infra';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, newPlayer, screenshot } from './browser';
import { uniqueName, until } from './players';

const gatewayUrl = inject('gatewayUrl');
const mailUrl = inject('mailUrl');
let browser: Browser;

export type Language = 'es' | 'en';
const dictionaries: Record<Language, Record<string, unknown>> = {
  es: JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../web/src/i18n/es.json'), 'utf8')),
  en: JSON.parse(readFileSync(resolve(import.meta.dirname, '../../../web/src/i18n/en.json'), 'utf8')),
};
/** The interface's own words, so the test reads what the player reads. */
function t(language: Language, key: string, values: Record<string, string> = {}): string {
  const text = key
    .split('.')
    .reduce<unknown>((node, part) => (node as Record<string, unknown>)[part], dictionaries[language]);
  if (typeof text !== 'string') throw new Error(`no text for ${key}`);
  return text.replace(/\{\{(\w+)\}\}/g, (_, name: string) => values[name] ?? '');
}

/** The newest mail to the address whose subject matches, from the catcher's API. */
async function mailTo(address: string, subject: RegExp): Promise<CaughtMail> {
  return until(
    async () => (await mailsTo(mailUrl, address, subject)).at(-1),
    (mail) => mail !== undefined,
    30_000,
  ) as Promise<CaughtMail>;
}

/** Another device signed in to the same account (its refresh cookie in its own browser context). */
async function otherDevice(username: string, password: string): Promise<BrowserContext> {
  const context = await browser.newContext({
    baseURL: gatewayUrl,
    userAgent:
      'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  });
  const response = await context.request.post('/api/user/login', {
    data: { emailOrUsername: username, password },
  });
  expect(response.status()).toBe(200);
  return context;
}

async function signIn(page: Page, language: Language, username: string, password: string) {
  const dialog = page.getByRole('dialog', { name: t(language, 'login.title') });
  await dialog.getByLabel(t(language, 'login.emailOrUsername')).fill(username);
  await dialog.getByLabel(t(language, 'login.password'), { exact: true }).fill(password);
  await dialog.getByRole('button', { name: t(language, 'login.submit') }).click();
  await page.waitForURL('**/game', { timeout: 30_000 });
}

/** The whole journey in each of `languages`, in a browser of its own. */
export function accountJourney(languages: readonly Language[]): void {
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
  });
  describe.each(languages)('account recovery and sessions (%s)', (language) => {
    it('register → verify from the mail → forgot password → reset from the mail → sign in → end another session → change email → confirm from the mail', async () => {
      expect(mailUrl).toBeTruthy();
      const username = uniqueName(`acct_${language}`);
      const email = `${username}@example.com`;

      // Registered on one browser, in the player's language (the server keeps it for the mails).
      const first = await newPlayer(browser, gatewayUrl);
      if (language === 'en') {
        await first.page.goto('/');
        await first.page.getByLabel('Idioma').first().selectOption('en');
        await first.page.getByRole('heading', { name: 'One Million Clicks' }).waitFor();
      }
      await first.page.goto('/');
      await first.page.getByRole('button', { name: t(language, 'welcome.register') }).click();
      const register = first.page.getByRole('dialog', { name: t(language, 'register.title') });
      await register.getByLabel(t(language, 'register.username')).fill(username);
      await register.getByLabel(t(language, 'register.email')).fill(email);
      await register.getByLabel(t(language, 'register.password'), { exact: true }).fill('secret123');
      await register.getByLabel(t(language, 'register.confirmPassword')).fill('secret123');
      await register.getByRole('button', { name: t(language, 'register.submit') }).click();
      await first.page.waitForURL('**/game');
      // Until verified, the game says so.
      const banner = first.page.getByRole('complementary').filter({ hasText: email });
      await banner.waitFor();

      const verification = await mailTo(
        email,
        language === 'es' ? /Confirma tu correo/ : /Confirm your email/,
      );
      const verifyLink = linkIn(verification, 'verify-email');
      expect(verifyLink, verification.text).toBeTruthy();
      await first.page.goto(verifyLink!);
      await first.page.getByText(t(language, 'verifyEmail.success')).waitFor();
      await first.page.goto('/profile');
      await first.page
        .getByTestId('email-verified')
        .getByText(t(language, 'profile.emailVerified'))
        .waitFor();
      expect(await first.page.getByRole('complementary').filter({ hasText: email }).count()).toBe(0);
      const stale = await otherDevice(username, 'secret123');
      await first.context.close();

      // Later, elsewhere, the password is forgotten.
      const { page, context } = await newPlayer(browser, gatewayUrl);
      await page.goto('/');
      if (language === 'en') await page.getByLabel('Idioma').first().selectOption('en');
      await page.getByRole('button', { name: t(language, 'welcome.login') }).click();
      await page.getByRole('button', { name: t(language, 'login.forgotPassword') }).click();
      const forgot = page.getByRole('dialog', { name: t(language, 'forgotPassword.title') });
      await forgot.getByLabel(t(language, 'forgotPassword.email')).fill(email);
      await forgot.getByRole('button', { name: t(language, 'forgotPassword.submit') }).click();
      await forgot.getByText(t(language, 'forgotPassword.sent')).waitFor();

      const mail = await mailTo(
        email,
        language === 'es' ? /Restablece tu contraseña/ : /Reset your password/,
      );
      const link = linkIn(mail, 'reset-password');
      expect(link, mail.text).toBeTruthy();

      await page.goto(link!);
      await page.getByRole('heading', { name: t(language, 'resetPassword.title') }).waitFor();
      await page
        .getByLabel(t(language, 'resetPassword.newPassword'), { exact: true })
        .fill('brand-new-secret');
      await page
        .getByLabel(t(language, 'resetPassword.confirmPassword'), { exact: true })
        .fill('brand-new-secret');
      await page.getByRole('button', { name: t(language, 'resetPassword.submit') }).click();
      await page.getByText(t(language, 'resetPassword.success')).waitFor();
      // The reset ended every session, the one on the other device too; a notice went to the address.
      expect((await stale.request.post('/api/user/refresh')).status()).toBe(401);
      await mailTo(email, language === 'es' ? /Tu contraseña ha cambiado/ : /Your password was changed/);

      await page.getByRole('button', { name: t(language, 'resetPassword.login') }).click();
      await signIn(page, language, username, 'brand-new-secret');

      // A second device signs in with the new password; this one ends it from the profile.
      const phone = await otherDevice(username, 'brand-new-secret');
      await page.goto('/profile');
      const sessions = page.getByRole('region', { name: t(language, 'sessions.title') });
      await sessions.getByText(t(language, 'sessions.current')).waitFor();
      const end = sessions.getByRole('button', { name: /iPhone/ });
      await end.waitFor();
      await screenshot(page, `account-sessions-${language}`);
      await end.click();
      await sessions.getByText(t(language, 'sessions.ended')).waitFor();
      expect((await phone.request.post('/api/user/refresh')).status()).toBe(401);
      await expect.poll(() => sessions.getByTestId('session').count()).toBe(1);

      // The email changes only once the new address confirms from its mail; the old one is told.
      const newEmail = `moved_${email}`;
      await page.getByRole('button', { name: t(language, 'profile.changeEmail') }).click();
      const changeDialog = page.getByRole('dialog', { name: t(language, 'changeEmail.title') });
      await changeDialog.getByLabel(t(language, 'changeEmail.newEmail')).fill(newEmail);
      await changeDialog.getByRole('button', { name: t(language, 'common.save') }).click();
      await changeDialog.getByText(t(language, 'changeEmail.pending', { email: newEmail })).waitFor();
      await page.getByTestId('pending-email').getByText(newEmail).waitFor();
      await mailTo(
        email,
        language === 'es' ? /Se pidió cambiar el correo/ : /A change of your account email was requested/,
      );
      const confirmMail = await mailTo(
        newEmail,
        language === 'es' ? /Confirma tu nuevo correo/ : /Confirm your new email/,
      );
      const confirmLink = linkIn(confirmMail, 'confirm-email');
      expect(confirmLink, confirmMail.text).toBeTruthy();
      await page.goto(confirmLink!);
      await page.getByText(t(language, 'confirmEmail.success')).waitFor();
      await page.getByRole('link', { name: t(language, 'confirmEmail.toProfile') }).click();
      await page.getByText(newEmail, { exact: true }).waitFor();
      await page.getByTestId('email-verified').getByText(t(language, 'profile.emailVerified')).waitFor();
      expect(await page.getByTestId('pending-email').count()).toBe(0);
      await screenshot(page, `account-email-changed-${language}`);

      await stale.close();
      await phone.close();
      await context.close();
    });
  });
}
