// The balances beside one page of the admin list: one call to the game (clicks) and one to payments
// (money) per page, in parallel, with the admin's own token forwarded; never one call per row. A service
// that does not answer in time leaves its figures null: the page still answers.
import {
  GameBalances,
  INTERNAL_USER_BALANCES_PATH,
  MoneyBalances,
  type AdminUserBalances,
} from '@omc/contracts';
import { forwardedHeaders, type Caller } from '@omc/service-kit';
import type { z } from 'zod';
import type { Deps } from '../deps.js';

async function ask<T extends z.ZodType>(
  deps: Deps,
  caller: Caller,
  callee: 'game' | 'payments',
  url: string,
  schema: T,
  userIds: string[],
): Promise<z.infer<T> | null> {
  try {
    const response = await deps.fetch(url, {
      method: 'POST',
      headers: {
        ...forwardedHeaders(caller),
        ...deps.credentials.headersFor(callee),
        'content-type': 'application/json',
      },
      body: JSON.stringify({ userIds }),
      signal: AbortSignal.timeout(deps.config.UPSTREAM_TIMEOUT_MS),
    });
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined);
      caller.log.warn({ url, status: response.status }, 'balances for the admin list unavailable');
      return null;
    }
    const parsed = schema.safeParse(await response.json());
    if (parsed.success) return parsed.data;
    caller.log.warn({ url }, 'balances for the admin list do not match the contract');
  } catch (error) {
    caller.log.warn({ url, err: error }, 'balances for the admin list unavailable');
  }
  return null;
}

export async function balancesOf(
  deps: Deps,
  caller: Caller,
  userIds: string[],
): Promise<Map<string, AdminUserBalances>> {
  const out = new Map<string, AdminUserBalances>();
  if (userIds.length === 0) return out;
  const [game, money] = await Promise.all([
    ask(
      deps,
      caller,
      'game',
      `${deps.config.GAME_INTERNAL_URL}${INTERNAL_USER_BALANCES_PATH}`,
      GameBalances,
      userIds,
    ),
    ask(
      deps,
      caller,
      'payments',
      `${deps.config.PAYMENTS_URL}${INTERNAL_USER_BALANCES_PATH}`,
      MoneyBalances,
      userIds,
    ),
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
