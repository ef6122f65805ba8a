// Paid payouts whose PayPal item is not final yet (migration 0041), and what reading it back records.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Payout } from './payouts.repo.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Paid payouts whose item is not final (not SUCCESS, not returned), the least recently read first. */
export async function unfinishedItems(db: Db, limit: number): Promise<Payout[]> {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where('status', '=', 'completed')
    .where('returned_at', 'is', null)
    .where(sql<boolean>`item_status is distinct from 'SUCCESS'`)
    .orderBy(sql`item_checked_at nulls first`)
    .orderBy('completed_at')
    .limit(limit)
    .execute();
}

/** Records the item's status as PayPal shows it now (or only the time of the read, when it could not). */
export async function recordItemStatus(db: Db, id: string, itemStatus: string | null): Promise<void> {
  await db
    .updateTable('payouts')
    .set({
      ...(itemStatus === null ? {} : { item_status: itemStatus }),
      item_checked_at: sql`now()`,
    })
    .where('id', '=', id)
    .where('returned_at', 'is', null)
    .execute();
}

/** Marks a paid payout's money as given back by PayPal; false when it already was (or is not paid). */
export async function markReturned(trx: Db, id: string, itemStatus: string): Promise<boolean> {
  const row = await trx
    .updateTable('payouts')
    .set({ item_status: itemStatus, item_checked_at: sql`now()`, returned_at: sql`now()` })
    .where('id', '=', id)
    .where('status', '=', 'completed')
    .where('returned_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  return Boolean(row);
}
