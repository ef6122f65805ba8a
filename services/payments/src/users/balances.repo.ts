// Money per player for the admin list: one query per figure for a whole page of ids (index lookups:
// the accounts' primary key, purchases_user_*, payouts_user).
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { winningsAccount } from '../ledger/accounts.js';

export interface MoneyCents {
  winnings: number;
  spent: number;
  paidOut: number;
}

export async function moneyOf(db: Kysely<Database>, userIds: string[]): Promise<Map<string, MoneyCents>> {
  const out = new Map<string, MoneyCents>();
  if (userIds.length === 0) return out;
  const entry = (id: string) => {
    let m = out.get(id);
    if (!m) out.set(id, (m = { winnings: 0, spent: 0, paidOut: 0 }));
    return m;
  };
  const [winnings, spent, paidOut] = await Promise.all([
    db
      .selectFrom('accounts')
      .select(['user_id', 'balance_cents'])
      .where(
        'id',
        'in',
        userIds.map((id) => winningsAccount(id)),
      )
      .execute(),
    db
      .selectFrom('purchases')
      .select((eb) => ['user_id', eb.fn.sum<string>('amount_cents').as('cents')])
      .where('user_id', 'in', userIds)
      .where('status', '=', 'succeeded')
      .groupBy('user_id')
      .execute(),
    db
      .selectFrom('payouts')
      .select((eb) => ['user_id', eb.fn.sum<string>('amount_cents').as('cents')])
      .where('user_id', 'in', userIds)
      .where('status', '=', 'completed')
      .where('kind', '=', 'winnings')
      .groupBy('user_id')
      .execute(),
  ]);
  for (const row of winnings) if (row.user_id) entry(row.user_id).winnings = Number(row.balance_cents);
  for (const row of spent) entry(row.user_id).spent = Number(row.cents);
  for (const row of paidOut) entry(row.user_id).paidOut = Number(row.cents);
  return out;
}
