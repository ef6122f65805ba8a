// Clawbacks (the provider took a purchase's money back) and what holds a winner's collect: one clawback row
// per purchase, written with the notification or the settlement read that started it.
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { ClawbackCause, Database } from '../db/schema.js';

export type Clawback = Selectable<Database['clawbacks']>;
type Db = Kysely<Database> | Transaction<Database>;

/** Braintree's settlement statuses of a sale whose money reached us for good. */
export const SETTLED = ['settled', 'settlement_confirmed'] as const;
/** Dispute statuses that end with the money taken back: lost, or accepted (by us or for us). */
export const DISPUTE_LOST = new Set(['lost', 'accepted', 'auto_accepted']);

/** Starts the purchase's clawback (taking_back); nothing when it has one. Returns the row. */
export async function startClawback(
  db: Db,
  input: { purchaseId: string; cause: ClawbackCause; amountCents: number },
): Promise<Clawback> {
  await db
    .insertInto('clawbacks')
    .values({
      purchase_id: input.purchaseId,
      cause: input.cause,
      status: 'taking_back',
      amount_cents: input.amountCents,
    })
    .onConflict((oc) => oc.column('purchase_id').doNothing())
    .execute();
  return (await getClawback(db, input.purchaseId))!;
}

export async function getClawback(db: Db, purchaseId: string): Promise<Clawback | undefined> {
  return db.selectFrom('clawbacks').selectAll().where('purchase_id', '=', purchaseId).executeTakeFirst();
}

/** Clawbacks not finished yet, oldest attempt first (the `clawbacks_unfinished` index). */
export async function unfinishedClawbacks(db: Db, limit: number): Promise<Clawback[]> {
  return db
    .selectFrom('clawbacks')
    .selectAll()
    .where('status', '=', 'taking_back')
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}

/** An attempt that could not finish: why, for the operator; the next pass tries again. */
export async function noteClawbackAttempt(db: Db, purchaseId: string, error: string): Promise<void> {
  await db
    .updateTable('clawbacks')
    .set({ attempts: sql`attempts + 1`, error, updated_at: sql`now()` })
    .where('purchase_id', '=', purchaseId)
    .where('status', '=', 'taking_back')
    .execute();
}

/** Everything done, in the transaction that posts the ledger movements; false when it was done before. */
export async function markClawbackCompleted(
  trx: Db,
  purchaseId: string,
  figures: {
    clicksTaken: number;
    clicksSpent: number;
    passTaken: boolean;
    potCents: number;
    houseCents: number;
    lossCents: number;
    uncoveredCents: number;
  },
): Promise<boolean> {
  const row = await trx
    .updateTable('clawbacks')
    .set({
      status: 'completed',
      clicks_taken: figures.clicksTaken,
      clicks_spent: figures.clicksSpent,
      pass_taken: figures.passTaken,
      pot_cents: figures.potCents,
      house_cents: figures.houseCents,
      loss_cents: figures.lossCents,
      uncovered_cents: figures.uncoveredCents,
      error: null,
      attempts: sql`attempts + 1`,
      updated_at: sql`now()`,
      completed_at: sql`now()`,
    })
    .where('purchase_id', '=', purchaseId)
    .where('status', '=', 'taking_back')
    .returning('purchase_id')
    .executeTakeFirst();
  return Boolean(row);
}

/** A purchase's settlement status as Braintree reported it (a webhook, or a read of the sale). */
export async function setPurchaseSettlement(db: Db, purchaseId: string, status: string): Promise<void> {
  await db
    .updateTable('purchases')
    .set({ settlement_status: status, updated_at: sql`now()` })
    .where('id', '=', purchaseId)
    .execute();
}

/** The purchase a Braintree transaction paid for. */
export async function purchaseByTransaction(db: Db, transactionId: string) {
  return db
    .selectFrom('purchases')
    .selectAll()
    .where('provider_transaction_id', '=', transactionId)
    .executeTakeFirst();
}

/** A purchase that holds a winner's collect, and what about it holds it. */
export interface HoldingPurchase {
  id: string;
  provider_transaction_id: string | null;
  settlement_status: string | null;
  dispute_status: string | null;
  clawed_back: boolean;
}

/**
 * The winner's purchases made up to their last credited win that may still be taken back: not settled,
 * disputed (any dispute not won), or clawed back. A purchase whose refund completed holds nothing (its
 * money went back already). Oldest first.
 */
export async function purchasesHoldingPayout(db: Db, userId: string): Promise<HoldingPurchase[]> {
  const { rows } = await sql<HoldingPurchase>`
    select p.id, p.provider_transaction_id, p.settlement_status, p.dispute_status,
      (c.purchase_id is not null) as clawed_back
    from purchases p
    left join clawbacks c on c.purchase_id = p.id
    left join refunds r on r.purchase_id = p.id and r.status = 'completed'
    where p.user_id = ${userId} and p.status = 'succeeded' and r.purchase_id is null
      and p.created_at <= (select max(w.created_at) from round_wins w where w.winner_user_id = ${userId})
      and (p.settlement_status is null or p.settlement_status not in ('settled', 'settlement_confirmed')
        or (p.dispute_status is not null and p.dispute_status <> 'won') or c.purchase_id is not null)
    order by p.created_at`.execute(db);
  return rows;
}

/**
 * Purchases of winners (made up to their last win) whose settlement Braintree has not reported, least
 * recently looked at first: what the settlement pass reads from Braintree.
 */
export async function unsettledPurchasesOfWinners(
  db: Db,
  limit: number,
): Promise<{ id: string; provider_transaction_id: string }[]> {
  const { rows } = await sql<{ id: string; provider_transaction_id: string }>`
    select p.id, p.provider_transaction_id from purchases p
    join (select winner_user_id, max(created_at) as won_at from round_wins group by winner_user_id) w
      on w.winner_user_id = p.user_id and p.created_at <= w.won_at
    where p.status = 'succeeded' and p.provider_transaction_id is not null
      and (p.settlement_status is null or p.settlement_status not in ('settled', 'settlement_confirmed', 'settlement_declined', 'voided'))
      and not exists (select 1 from clawbacks c where c.purchase_id = p.id)
      and not exists (select 1 from refunds r where r.purchase_id = p.id and r.status = 'completed')
    order by p.updated_at limit ${limit}`.execute(db);
  return rows;
}
