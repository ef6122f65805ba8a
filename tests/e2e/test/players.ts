// What a player does through the interface, in Spanish (the default language).
import type { Page } from 'playwright-core';
import { mailedLink } from '@omc/infra';
import { expect } from 'vitest';

let counter = 0;
export function uniqueName(prefix: string): string {
  counter += 1;
  return `${prefix}_${process.pid % 10_000}_${Date.now() % 100_000}_${counter}`;
}

export async function registerThroughUi(page: Page, username: string, password = 'secret123'): Promise<void> {
  await page.goto('/');
  await page.getByRole('button', { name: 'Registrarse' }).click();
  const dialog = page.getByRole('dialog', { name: 'Crea tu cuenta' });
  await dialog.getByLabel('Nombre de usuario').fill(username);
  await dialog.getByLabel('Correo electrónico').fill(`${username}@example.com`);
  await dialog.getByLabel('Contraseña', { exact: true }).fill(password);
  await dialog.getByLabel('Confirmar contraseña').fill(password);
  await dialog.getByRole('button', { name: 'Registrarse' }).click();
  await page.waitForURL('**/game');
  await page.getByRole('link', { name: `Hola, ${username}` }).waitFor();
}

export async function loginThroughUi(page: Page, emailOrUsername: string, password: string): Promise<void> {
  await page.goto('/');
  await page.getByRole('button', { name: 'Iniciar sesión' }).click();
  const dialog = page.getByRole('dialog', { name: 'Iniciar sesión' });
  await dialog.getByLabel('Correo o nombre de usuario').fill(emailOrUsername);
  await dialog.getByLabel('Contraseña', { exact: true }).fill(password);
  await dialog.getByRole('button', { name: 'Entrar' }).click();
  // In on /game, or refused with the dialog's message (which then names the failure); a login can take
  // a while on a busy machine (Argon2id), so the wait is generous.
  const refusal = dialog.getByRole('alert').filter({ hasText: /\S/ });
  const refused = refusal.waitFor({ timeout: 30_000 }).then(
    () => true,
    () => false,
  );
  const signedIn = page.waitForURL('**/game', { timeout: 30_000 }).then(() => false);
  if (await Promise.race([signedIn, refused]))
    throw new Error(`login as ${emailOrUsername} refused: ${await refusal.textContent()}`);
  await signedIn;
}

/** The player opens the verification link from their mail in the browser, as they would. */
export async function verifyThroughMail(page: Page, mailUrl: string, email: string): Promise<void> {
  await page.goto(await mailedLink(mailUrl, email, 'verify-email'));
  await page.getByText('Correo verificado. ¡Gracias!').waitFor();
}

/**
 * The player names a PayPal email in the payout dialog (giving the password when the dialog asks for it:
 * a sign-in older than a few minutes), then opens the confirm link mailed to the account's email.
 */
export async function setPayoutEmailThroughUi(
  page: Page,
  mailUrl: string,
  { username, password = 'secret123' }: { username: string; password?: string },
): Promise<void> {
  await page.getByRole('button', { name: 'Configurar' }).click();
  const method = page.getByRole('dialog', { name: 'Método de cobro' });
  await method.getByLabel('Correo de PayPal').fill(`${username}@paypal.example.com`);
  await method.getByRole('button', { name: 'Guardar' }).click();
  const mailed = method.getByText(/Revisa tu correo/);
  const passwordField = method.getByLabel('Contraseña actual', { exact: true });
  await mailed.or(passwordField).first().waitFor();
  if (await passwordField.isVisible()) {
    await passwordField.fill(password);
    await method.getByRole('button', { name: 'Guardar' }).click();
    await mailed.waitFor();
  }
  await page.keyboard.press('Escape');
  await page.goto(await mailedLink(mailUrl, `${username}@example.com`, 'confirm-payout-email'));
  await page.getByText(/Correo de PayPal confirmado/).waitFor();
}

/** The global counter as the page shows it (digits only, whatever the locale's grouping). */
export async function shownCount(page: Page): Promise<number> {
  const text = await page.getByTestId('global-clicks').textContent();
  return Number((text ?? '').replace(/\D/g, ''));
}

export async function shownFreeClicks(page: Page): Promise<string> {
  return ((await page.getByTestId('free-clicks').textContent()) ?? '').trim();
}

/**
 * How long a purchase may take to reach the player's screen: its event brings it at once, and one that
 * is late or lost is applied by the game's reconciliation pass within `EVENT_RECONCILE_INTERVAL_MS`
 * (60 s) plus a pass (docs/reliability.md, "The outbox is the record, the bus is the doorbell"); the web
 * app reads the profile that long after a purchase (web/src/api/purchaseWatch.ts).
 */
export const PURCHASE_CREDIT_MS = 75_000;

/** The pot as the page shows it ("0,49 €"), in euros. */
export async function shownPot(page: Page): Promise<number> {
  const text = await page.getByTestId('pot').textContent();
  return Number((text ?? '').replace(/[^\d,]/g, '').replace(',', '.'));
}

/** Whether the pot grew by a pack's pot share (half of 0.99: 0.49 or 0.50). */
export const grewByPotShare = (before: number) => (pot: number) =>
  [49, 50].includes(Math.round((pot - before) * 100));

/**
 * The player buys the 100-click pack with the emulator's approved test card and sees it credited: the
 * clicks in their balance and the pot share in the pot.
 */
export async function buyPackThroughUi(page: Page): Promise<void> {
  const before = Number(await shownFreeClicks(page));
  const potBefore = await shownPot(page);
  await page.getByRole('button', { name: 'Comprar clics' }).click();
  const dialog = page.getByRole('dialog', { name: 'Comprar clics' });
  await dialog.getByText('100 clics').click();
  await dialog.getByLabel('Tarjeta de prueba (aprobada)').check();
  await dialog.getByRole('button', { name: /^Pagar/ }).click();
  await page.getByTestId('notice-success').filter({ hasText: 'Compra completada' }).waitFor();
  await until(
    () => shownFreeClicks(page),
    (v) => v === String(before + 100),
    PURCHASE_CREDIT_MS,
  );
  // The pot share comes with the same purchase, by the live state: the same bound.
  await until(() => shownPot(page), grewByPotShare(potBefore), PURCHASE_CREDIT_MS);
}

/** Polls until `read` returns what `check` accepts, then returns it. */
export async function until<T>(
  read: () => Promise<T>,
  check: (value: T) => boolean,
  timeoutMs = 15_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let value = await read();
  while (!check(value)) {
    if (Date.now() > deadline) expect.fail(`still ${JSON.stringify(value)} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
    value = await read();
  }
  return value;
}

export function clickButton(page: Page) {
  return page.getByRole('button', { name: '+1: suma un clic al contador' });
}

/** The round's counter straight from the API, to know how far the target is. */
export async function serverCount(page: Page): Promise<number> {
  return (await serverState(page)).globalClicks;
}

/** The game's state straight from the API: the round's counter and the last round's winner. */
async function serverState(page: Page): Promise<{ globalClicks: number; lastWinner: string | null }> {
  return page.evaluate(async () => {
    const response = await fetch('/api/game/state');
    const body = (await response.json()) as {
      gameState: { globalClicks: number; lastWinner: string | null };
    };
    return body.gameState;
  });
}

/**
 * Presses +1 until this player's click closes the round, as a player racing for the pot would: quick
 * presses without waiting for each answer, and once the counter stops moving (every press answered),
 * the presses a busy game turned away (after the page's own retries, busyRetry.ts) made again.
 */
export async function pressUntilWon(page: Page, username: string, target: number): Promise<void> {
  for (let volley = 0; volley < 5; volley++) {
    const { globalClicks, lastWinner } = await serverState(page);
    if (lastWinner === username) return;
    for (let i = globalClicks; i < target; i++)
      await clickButton(page).click({ force: true, noWaitAfter: true });
    // Settled: the state unchanged for two seconds. A press still waiting out a busy retry (pauses of
    // 1-6 s) may land after the next volley; it then counts in the next round, and every press is this
    // player's, so the closing one is too.
    let before = JSON.stringify(await serverState(page));
    for (let quiet = 0; quiet < 2;) {
      await new Promise((r) => setTimeout(r, 1000));
      const now = JSON.stringify(await serverState(page));
      quiet = now === before ? quiet + 1 : 0;
      before = now;
    }
  }
  expect((await serverState(page)).lastWinner, 'the round won by this player').toBe(username);
}

/**
 * Braintree's settlement batch, run at the emulator: a winner's collect waits until the purchases made
 * before the win settled (docs/payments.md, "Clawbacks and payout holds").
 */
export async function settleSales(emulatorUrl: string): Promise<void> {
  const answer = await fetch(`${emulatorUrl}/__emulator/braintree/settlement-batch`, { method: 'POST' });
  expect(answer.status).toBe(200);
}
