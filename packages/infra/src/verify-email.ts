// Verifying accounts the way a player does: the verification mail auth sent at registration is read from
// the development mail catcher (maildev's GET /email), and its link's token is posted to
// POST /api/user/verify-email. Suites whose players collect winnings (which needs a verified email) use
// this; one read of the inbox serves every address still waiting, so a hundred players cost a few reads.
import { caughtMails, linkIn, tokenOf, type CaughtMail } from './inbox.js';

/** The token of the newest verification link to each address, among the mails in the catcher. */
function newestTokens(mails: CaughtMail[], addresses: Set<string>): Map<string, string> {
  const tokens = new Map<string, string>();
  for (const mail of mails) {
    const link = linkIn(mail, 'verify-email');
    if (!link) continue;
    for (const to of mail.to) {
      const address = to.address.toLowerCase();
      // maildev lists mails oldest first: a later one replaces an earlier one.
      if (addresses.has(address)) tokens.set(address, tokenOf(link));
    }
  }
  return tokens;
}

export interface VerifyFromCatcherOptions {
  /** The catcher's web inbox (its API lists mails at `${mailUrl}/email`). */
  mailUrl: string;
  /** Where the product answers /api/user/verify-email (the gateway). */
  apiUrl: string;
  /** How long to wait for the mails (auth sends them from its queue, a moment after registration). */
  timeoutMs?: number;
}

/**
 * Verifies each address from the newest verification mail to it. Resolves when every one is verified;
 * an address already verified (its link answers "already used") counts as verified. Throws naming the
 * addresses whose mail never came, or the answer that refused a link.
 */
export async function verifyEmailsFromCatcher(
  emails: string[],
  options: VerifyFromCatcherOptions,
): Promise<void> {
  const waiting = new Set(emails.map((e) => e.toLowerCase()));
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  while (waiting.size > 0) {
    for (const [address, token] of newestTokens(await caughtMails(options.mailUrl), waiting)) {
      const answer = await fetch(`${options.apiUrl}/api/user/verify-email`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ token }),
        signal: AbortSignal.timeout(10_000),
      });
      const body = (await answer.json().catch(() => ({}))) as { message?: string };
      if (answer.ok || (answer.status === 400 && /already/i.test(body.message ?? ''))) {
        waiting.delete(address);
        continue;
      }
      throw new Error(`verifying ${address}: ${answer.status} ${body.message ?? ''}`);
    }
    if (waiting.size === 0) return;
    if (Date.now() > deadline)
      throw new Error(`no verification mail in the catcher for ${[...waiting].join(', ')}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Verifies one address from the newest verification mail to it (see verifyEmailsFromCatcher). */
export function verifyEmailFromCatcher(email: string, options: VerifyFromCatcherOptions): Promise<void> {
  return verifyEmailsFromCatcher([email], options);
}
