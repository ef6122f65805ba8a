// The payout email's confirm link is minted by payments, which owns the request and keeps only the
// token's hash: auth's mailer asks for it as the mail leaves (links.ts), so the token exists only in
// that answer and the mail. 410: the request may no longer be confirmed, and the mail is dropped.
import { InternalPayoutEmailToken, internalPayoutEmailTokenPath } from '@omc/contracts';
import type { Deps } from '../deps.js';

export async function mintPayoutEmailToken(deps: Deps, requestId: string): Promise<string | null> {
  const response = await deps.fetch(`${deps.config.PAYMENTS_URL}${internalPayoutEmailTokenPath(requestId)}`, {
    method: 'POST',
    headers: deps.credentials.headersFor('payments'),
    signal: AbortSignal.timeout(deps.config.UPSTREAM_TIMEOUT_MS),
  });
  if (response.status === 410) {
    await response.body?.cancel().catch(() => undefined);
    return null;
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    // Payments down or busy: the mail waits and is tried again (the sender's retry).
    throw new Error(`payments did not mint the payout email link: status ${response.status}`);
  }
  return InternalPayoutEmailToken.parse(await response.json()).token;
}
