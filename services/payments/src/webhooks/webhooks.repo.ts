// Webhook notifications received (each applied once) and what they change on a purchase.
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Records a notification; false when the same payload was received before. */
export async function recordWebhook(
  db: Db,
  webhook: { id: string; kind: string; subjectId: string | null },
): Promise<boolean> {
  const fresh = await db
    .insertInto('webhook_events')
    .values({ id: webhook.id, kind: webhook.kind, subject_id: webhook.subjectId })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return fresh !== undefined;
}

export async function setSettlementStatus(db: Db, transactionId: string, status: string): Promise<void> {
  await db
    .updateTable('purchases')
    .set({ settlement_status: status, updated_at: sql`now()` })
    .where('provider_transaction_id', '=', transactionId)
    .execute();
}

export async function setDisputeStatus(db: Db, transactionId: string, status: string): Promise<void> {
  await db
    .updateTable('purchases')
    .set({ dispute_status: status, updated_at: sql`now()` })
    .where('provider_transaction_id', '=', transactionId)
    .execute();
}
