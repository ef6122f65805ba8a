// An approved house payout: payments pays the house balance to the requesting admin's PayPal email. Auth
// states the account as it has it now (role, verified email, security epoch); payments' own checks (a
// confirmed payout email, a positive balance, one payout at a time) still apply. Its refusal reaches the
// approver as payments gave it. No answer in time is not "not paid": payments finishes a payout it started.
import {
  ERROR_CODE,
  INTERNAL,
  isErrorCode,
  type CollectResponse,
  type InternalHousePayout,
} from '@omc/contracts';
import { AppError, type Caller } from '@omc/service-kit';
import type { Deps } from '../deps.js';
import type { UserRow } from '../users/users.repo.js';

export type HousePayoutResult = { ok: true; payout: CollectResponse } | { ok: false; error: AppError };

const unsure = (what: string) =>
  new AppError(
    ERROR_CODE.UPSTREAM_UNAVAILABLE,
    504,
    `Payments did not answer (${what}). The payout may still complete: check the payouts list before asking again.`,
  );

export async function payOutHouse(
  deps: Deps,
  caller: Caller,
  approvalId: string,
  requester: UserRow,
): Promise<HousePayoutResult> {
  const body: InternalHousePayout = {
    approvalId,
    userId: requester.id,
    role: requester.role,
    emailVerified: requester.email_verified_at !== null,
    securityEpoch: requester.security_epoch,
  };
  const paid = await deps.internal.call(INTERNAL.housePayout, {
    body,
    caller,
    timeoutMs: deps.config.HOUSE_PAYOUT_TIMEOUT_MS,
  });
  switch (paid.kind) {
    case 'answered':
      return { ok: true, payout: paid.data };
    case 'unreadable':
      return { ok: false, error: unsure('unreadable answer') };
    case 'unanswered':
      return { ok: false, error: unsure(paid.reason === 'timed out' ? 'timed out' : 'unreachable') };
  }
  const message = paid.body.message?.slice(0, 500);
  if (!message || (paid.status >= 500 && !isErrorCode(paid.body.code)))
    return { ok: false, error: unsure(`status ${paid.status}`) };
  const code = isErrorCode(paid.body.code) ? paid.body.code : ERROR_CODE.CONFLICT;
  return { ok: false, error: new AppError(code, paid.status, message) };
}
