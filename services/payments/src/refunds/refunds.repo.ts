// Refunds: one row per purchase, written before Braintree is asked; a lease lets one request at a time
// work on it, and its status says how far it got (returning, returned, completed, failed).
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

export type Refund = Selectable<Database['refunds']>;
type Db = Kysely<Database> | Transaction<Database>;

/**
 * The purchase's refund: started now (returning) when it has none, started again when the last attempt
 * was refused (failed), else the one that exists.
 */
export async function startRefund(
  db: Db,
  input: {
    purchaseId: string;
    amountCents: number;
    reason: string;
    adminUserId: string;
    adminIp: string | null;
  },
): Promise<Refund> {
  await db
    .insertInto('refunds')
    .values({
      purchase_id: input.purchaseId,
      status: 'returning',
      reason: input.reason,
      admin_user_id: input.adminUserId,
      admin_ip: input.adminIp,
      amount_cents: input.amountCents,
    })
    .onConflict((oc) =>
      oc
        .column('purchase_id')
        .doUpdateSet({
          status: 'returning',
          reason: input.reason,
          admin_user_id: input.adminUserId,
          admin_ip: input.adminIp,
          error: null,
          updated_at: sql`now()`,
        })
        .where('refunds.status', '=', 'failed'),
    )
    .execute();
  return (await getRefund(db, input.purchaseId))!;
}

export async function getRefund(db: Db, purchaseId: string): Promise<Refund | undefined> {
  return db.selectFrom('refunds').selectAll().where('purchase_id', '=', purchaseId).executeTakeFirst();
}

/** Takes the right to work on an unfinished refund for leaseMs; undefined when someone else holds it. */
export async function claimRefund(db: Db, purchaseId: string, leaseMs: number): Promise<Refund | undefined> {
  return db
    .updateTable('refunds')
    .set({
      attempts: sql`attempts + 1`,
      lease_until: sql`now() + make_interval(secs => ${leaseMs / 1000})`,
      updated_at: sql`now()`,
    })
    .where('purchase_id', '=', purchaseId)
    .where('status', 'in', ['returning', 'returned'])
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', sql<Date>`now()`)]))
    .returningAll()
    .executeTakeFirst();
}

export async function releaseRefund(db: Db, purchaseId: string, error: string): Promise<void> {
  await db
    .updateTable('refunds')
    .set({ lease_until: null, error, updated_at: sql`now()` })
    .where('purchase_id', '=', purchaseId)
    .execute();
}

/**
 * Unfinished refunds no request or pass is working on (their lease free), oldest first
 * (the `refunds_unfinished` index).
 */
export async function unfinishedRefunds(db: Db, limit: number): Promise<Refund[]> {
  return db
    .selectFrom('refunds')
    .selectAll()
    .where('status', 'in', ['returning', 'returned'])
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', sql<Date>`now()`)]))
    .orderBy('updated_at')
    .limit(limit)
    .execute();
}

/**
 * The money went back to the buyer (voided or refunded at Braintree): `amountCents` is what Braintree
 * gave back (a partial refund made at its console is less than the price).
 */
export async function markReturned(
  db: Db,
  purchaseId: string,
  provider: { kind: 'void' | 'refund'; refundId: string; amountCents: number },
): Promise<void> {
  await db
    .updateTable('refunds')
    .set({
      status: 'returned',
      kind: provider.kind,
      provider_refund_id: provider.refundId,
      amount_cents: provider.amountCents,
      error: null,
      updated_at: sql`now()`,
    })
    .where('purchase_id', '=', purchaseId)
    .where('status', '=', 'returning')
    .execute();
}

/** Braintree refused: nothing moved, and a later request may try again. */
export async function markFailed(db: Db, purchaseId: string, error: string): Promise<void> {
  await db
    .updateTable('refunds')
    .set({ status: 'failed', error, lease_until: null, updated_at: sql`now()` })
    .where('purchase_id', '=', purchaseId)
    .where('status', '=', 'returning')
    .execute();
}

/** Everything done, in the transaction that posts the ledger movement; false when it was done before. */
export async function markCompleted(
  trx: Db,
  purchaseId: string,
  figures: { clicks: number; pass: boolean; potCents: number; houseCents: number; lossCents: number },
): Promise<boolean> {
  const row = await trx
    .updateTable('refunds')
    .set({
      status: 'completed',
      clicks_taken: figures.clicks,
      pass_taken: figures.pass,
      pot_cents: figures.potCents,
      house_cents: figures.houseCents,
      loss_cents: figures.lossCents,
      error: null,
      lease_until: null,
      updated_at: sql`now()`,
      completed_at: sql`now()`,
    })
    .where('purchase_id', '=', purchaseId)
    .where('status', '=', 'returned')
    .returning('purchase_id')
    .executeTakeFirst();
  return Boolean(row);
}

/** A purchase's shares as its ledger movement posted them. */
export async function purchaseShares(
  db: Db,
  purchaseId: string,
  accounts: { roundPot: string; house: string },
): Promise<{ potShareCents: number; houseShareCents: number }> {
  const { rows } = await sql<{ account_id: string; cents: string }>`
    select e.account_id, sum(e.amount_cents)::bigint as cents
    from ledger_transactions t join ledger_entries e on e.transaction_id = t.id
    where t.reference = ${`purchase:${purchaseId}`} group by e.account_id`.execute(db);
  const of = (account: string) => Number(rows.find((r) => r.account_id === account)?.cents ?? 0);
  return { potShareCents: of(accounts.roundPot), houseShareCents: of(accounts.house) };
}

/** Refunds not finished (returning, returned), and the age of the oldest, for the operator's gauges. */
export async function unfinishedRefundsAge(db: Db): Promise<{ count: number; oldestAgeSeconds: number }> {
  const row = await db
    .selectFrom('refunds')
    .select([
      sql<string>`count(*)`.as('count'),
      sql<string>`coalesce(extract(epoch from now() - min(updated_at)), 0)`.as('oldest'),
    ])
    .where('status', 'in', ['returning', 'returned'])
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldestAgeSeconds: Number(row.oldest) };
}
