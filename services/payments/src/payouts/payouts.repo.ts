// Payouts and payees. A payout row exists before PayPal is called; its id is the sender_batch_id.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

export type Payout = Selectable<Database['payouts']>;
type Db = Kysely<Database> | Transaction<Database>;

export async function setPayee(db: Db, userId: string, paypalEmail: string): Promise<void> {
  await db
    .insertInto('payees')
    .values({ user_id: userId, paypal_email: paypalEmail })
    .onConflict((oc) =>
      oc.column('user_id').doUpdateSet({ paypal_email: paypalEmail, updated_at: sql`now()` }),
    )
    .execute();
}

export async function getPayee(db: Db, userId: string): Promise<string | null> {
  const row = await db
    .selectFrom('payees')
    .select('paypal_email')
    .where('user_id', '=', userId)
    .executeTakeFirst();
  return row?.paypal_email ?? null;
}

export async function pendingPayout(trx: Db, accountId: string): Promise<Payout | undefined> {
  return trx
    .selectFrom('payouts')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('status', '=', 'pending')
    .executeTakeFirst();
}

export async function insertPayout(
  trx: Db,
  input: {
    userId: string;
    kind: 'winnings' | 'house';
    accountId: string;
    amountCents: number;
    paypalEmail: string;
    leaseMs: number;
  },
): Promise<Payout> {
  return trx
    .insertInto('payouts')
    .values({
      id: randomUUID(),
      user_id: input.userId,
      kind: input.kind,
      account_id: input.accountId,
      amount_cents: input.amountCents,
      paypal_email: input.paypalEmail,
      status: 'pending',
      attempts: 0,
      lease_until: sql`now() + make_interval(secs => ${input.leaseMs / 1000})`,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Takes a pending payout whose lease ran out (its caller gave up or crashed), to finish it. */
export async function claimPayout(trx: Db, id: string, leaseMs: number): Promise<Payout | undefined> {
  return trx
    .updateTable('payouts')
    .set({ lease_until: sql`now() + make_interval(secs => ${leaseMs / 1000})` })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', sql<Date>`now()`)]))
    .returningAll()
    .executeTakeFirst();
}

export async function releasePayout(db: Db, id: string, error: string, attempts: number): Promise<void> {
  await db
    .updateTable('payouts')
    .set({ lease_until: null, error, attempts: sql`attempts + ${attempts}` })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

export async function finishPayout(
  trx: Db,
  id: string,
  outcome: {
    status: 'completed' | 'failed';
    providerBatchId: string | null;
    error: string | null;
    attempts: number;
  },
): Promise<boolean> {
  const row = await trx
    .updateTable('payouts')
    .set({
      status: outcome.status,
      provider_batch_id: outcome.providerBatchId,
      error: outcome.error,
      attempts: sql`attempts + ${outcome.attempts}`,
      lease_until: null,
      completed_at: sql`now()`,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returning('id')
    .executeTakeFirst();
  return Boolean(row);
}

export async function abandonedPayouts(db: Db, limit = 20): Promise<Payout[]> {
  return db
    .selectFrom('payouts')
    .selectAll()
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', sql<Date>`now()`)]))
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/** Payouts not finished (pending: being paid, or left unknown by PayPal), and the age of the oldest. */
export async function unfinishedPayouts(db: Db): Promise<{ count: number; oldestAgeSeconds: number }> {
  const row = await db
    .selectFrom('payouts')
    .select([
      sql<string>`count(*)`.as('count'),
      sql<string>`coalesce(extract(epoch from now() - min(created_at)), 0)`.as('oldest'),
    ])
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldestAgeSeconds: Number(row.oldest) };
}
