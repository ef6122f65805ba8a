// An approved house payout: payments pays the house balance to the requesting admin's PayPal email. Auth
// states the account as it has it now (role, verified email, security epoch); payments' own checks (a
// confirmed payout email, a positive balance, one payout at a time) still apply. Its refusal reaches the
// approver as payments gave it. No answer in time is not "not paid": payments finishes a payout it started.
import {
  CollectResponse,
  ERROR_CODE,
  INTERNAL_HOUSE_PAYOUT_PATH,
  isErrorCode,
  type InternalHousePayout,
} from '@omc/contracts';
import { AppError, forwardedHeaders, type Caller } from '@omc/service-kit';
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
  let response: Response;
  try {
    response = await deps.fetch(`${deps.config.PAYMENTS_URL}${INTERNAL_HOUSE_PAYOUT_PATH}`, {
      method: 'POST',
      headers: {
        ...forwardedHeaders(caller),
        ...deps.credentials.headersFor('payments'),
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(deps.config.HOUSE_PAYOUT_TIMEOUT_MS),
    });
  } catch (error) {
    return {
      ok: false,
      error: unsure((error as Error).name === 'TimeoutError' ? 'timed out' : 'unreachable'),
    };
  }
  const answer = (await response.json().catch(() => undefined)) as Record<string, unknown> | undefined;
  if (response.ok) {
    const parsed = CollectResponse.safeParse(answer);
    return parsed.success
      ? { ok: true, payout: parsed.data }
      : { ok: false, error: unsure('unreadable answer') };
  }
  const message = typeof answer?.message === 'string' ? answer.message.slice(0, 500) : undefined;
  if (!message || (response.status >= 500 && !isErrorCode(answer?.code)))
    return { ok: false, error: unsure(`status ${response.status}`) };
  const code = isErrorCode(answer?.code) ? answer.code : ERROR_CODE.CONFLICT;
  return { ok: false, error: new AppError(code, response.status, message) };
}
