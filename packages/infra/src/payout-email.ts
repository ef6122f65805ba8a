// Setting the payout email the way a player does: ask for it (POST /api/winners/setPaymentMethod), then
// open the confirm link auth mailed to the account's email (read from the development mail catcher) and
// post its token to POST /api/winners/confirm-payout-email. Suites whose players collect use this.
import { caughtMails, linkIn, tokenOf } from './inbox.js';

export interface PayoutEmailFromCatcherOptions {
  /** The catcher's web inbox (its API lists mails at `${mailUrl}/email`). */
  mailUrl: string;
  /** Where the product answers /api/winners/* (the gateway). */
  apiUrl: string;
  /** How long to wait for the mail (auth sends it from its queue, a moment after the request). */
  timeoutMs?: number;
}

export interface PayoutEmailOutcome {
  /** The status of the request (200 when a confirmation was mailed). */
  requested: number;
  /** The status of the confirm (200 when the address is now the payout address); absent when not tried. */
  confirmed?: number;
  /** The body of the last answer. */
  body: unknown;
}

const confirmLinks = async (mailUrl: string, accountEmail: string) =>
  (await caughtMails(mailUrl))
    .filter((m) => m.to.some((to) => to.address.toLowerCase() === accountEmail.toLowerCase()))
    .map((m) => linkIn(m, 'confirm-payout-email'))
    .filter((link): link is string => Boolean(link));

async function post(url: string, body: unknown, token?: string) {
  const answer = await fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(15_000),
  });
  return { status: answer.status, body: await answer.json().catch(() => undefined) };
}

/**
 * Asks for `paypalEmail` as the payout address of the account whose token and email are given, then
 * confirms it from the newest link mailed to `accountEmail` after the request. Throws when no link came
 * within `timeoutMs`; a refused request or confirm is returned, not thrown.
 */
export async function setPayoutEmailFromCatcher(
  player: { token: string; email: string },
  paypalEmail: string,
  options: PayoutEmailFromCatcherOptions & { currentPassword?: string },
): Promise<PayoutEmailOutcome> {
  const before = (await confirmLinks(options.mailUrl, player.email)).length;
  const requested = await post(
    `${options.apiUrl}/api/winners/setPaymentMethod`,
    { paypalEmail, ...(options.currentPassword ? { currentPassword: options.currentPassword } : {}) },
    player.token,
  );
  if (requested.status !== 200) return { requested: requested.status, body: requested.body };
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  for (;;) {
    const links = await confirmLinks(options.mailUrl, player.email);
    if (links.length > before) {
      const confirmed = await post(`${options.apiUrl}/api/winners/confirm-payout-email`, {
        token: tokenOf(links.at(-1)!),
      });
      return { requested: requested.status, confirmed: confirmed.status, body: confirmed.body };
    }
    if (Date.now() > deadline)
      throw new Error(`no payout email confirmation mail to ${player.email} in the catcher`);
    await new Promise((r) => setTimeout(r, 200));
  }
}
