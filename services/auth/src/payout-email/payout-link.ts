// The payout email's confirm link is minted by payments, which owns the request and keeps only the
// token's hash: auth's mailer asks for it as the mail leaves (links.ts), so the token exists only in
// that answer and the mail. 410: the request may no longer be confirmed, and the mail is dropped.
import { INTERNAL } from '@omc/contracts';
import { outcomeReason } from '@omc/service-kit';
import type { Deps } from '../deps.js';

export async function mintPayoutEmailToken(deps: Deps, requestId: string): Promise<string | null> {
  const minted = await deps.internal.call(INTERNAL.payoutEmailToken, { params: { requestId } });
  if (minted.kind === 'answered') return minted.data.token;
  if (minted.kind === 'refused' && minted.status === 410) return null;
  // Payments down or busy: the mail waits and is tried again (the sender's retry).
  throw new Error(`payments did not mint the payout email link: ${outcomeReason(minted)}`);
}
