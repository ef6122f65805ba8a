// The balances beside one page of the admin list: one call to the game (clicks) and one to payments
// (money) per page, in parallel, with the admin's own token forwarded; never one call per row. A service
// that does not answer in time leaves its figures null: the page still answers.
import { INTERNAL, type AdminUserBalances } from '@omc/contracts';
import { outcomeReason, type Caller, type InternalOutcome } from '@omc/service-kit';
import type { Deps } from '../deps.js';

/** A service's figures, or null (logged) when it did not give them. */
function figures<T>(caller: Caller, service: string, answer: InternalOutcome<T>): T | null {
  if (answer.kind === 'answered') return answer.data;
  caller.log.warn({ service, reason: outcomeReason(answer) }, 'balances for the admin list unavailable');
  return null;
}

export async function balancesOf(
  deps: Deps,
  caller: Caller,
  userIds: string[],
): Promise<Map<string, AdminUserBalances>> {
  const out = new Map<string, AdminUserBalances>();
  if (userIds.length === 0) return out;
  const call = { body: { userIds }, caller };
  const [game, money] = await Promise.all([
    deps.internal.call(INTERNAL.clickBalances, call).then((a) => figures(caller, 'game', a)),
    deps.internal.call(INTERNAL.moneyBalances, call).then((a) => figures(caller, 'payments', a)),
  ]);
  for (const id of userIds) {
    const clicks = game?.balances[id];
    // Payments leaves out accounts money never touched: zero, not unknown.
    const euros = money ? (money.balances[id] ?? { potEarned: 0, spent: 0, paidOut: 0 }) : null;
    out.set(id, {
      freeClicks: clicks?.freeClicks ?? null,
      hasInfiniteClicks: clicks?.hasInfiniteClicks ?? null,
      potEarned: euros?.potEarned ?? null,
      spent: euros?.spent ?? null,
      paidOut: euros?.paidOut ?? null,
    });
  }
  return out;
}
