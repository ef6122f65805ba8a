// Purchases: written before the provider is called (pending) and after (succeeded, declined, failed).
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

export type Purchase = Selectable<Database['purchases']>;
type Db = Kysely<Database> | Transaction<Database>;

/** Without a client key, the same user and nonce within this window is the same checkout (a double submit). */
const SAME_NONCE_WINDOW_SECONDS = 60;

export async function findOrCreatePurchase(
  db: Kysely<Database>,
  input: { userId: string; idempotencyKey?: string; nonceHash: string; packId: string; amountCents: number },
): Promise<Purchase> {
  return db.transaction().execute(async (trx) => {
    if (input.idempotencyKey) {
      // A client key is scoped to its user: another user's key can never reach this purchase.
      const key = `key:${input.userId}:${input.idempotencyKey}`;
      await trx
        .insertInto('purchases')
        .values({
          id: randomUUID(),
          user_id: input.userId,
          idempotency_key: key,
          nonce_hash: input.nonceHash,
          pack_id: input.packId,
          amount_cents: input.amountCents,
          status: 'pending',
        })
        .onConflict((oc) => oc.column('idempotency_key').doNothing())
        .execute();
      return trx
        .selectFrom('purchases')
        .selectAll()
        .where('idempotency_key', '=', key)
        .executeTakeFirstOrThrow();
    }
    // Serialise this user's checkouts with this nonce, then reuse a recent one or start a new one.
    await sql`select pg_advisory_xact_lock(hashtextextended(${`${input.userId}:${input.nonceHash}`}, 0))`.execute(
      trx,
    );
    const recent = await trx
      .selectFrom('purchases')
      .selectAll()
      .where('user_id', '=', input.userId)
      .where('nonce_hash', '=', input.nonceHash)
      .where('pack_id', '=', input.packId)
      .where('created_at', '>', sql<Date>`now() - make_interval(secs => ${SAME_NONCE_WINDOW_SECONDS})`)
      .orderBy('created_at', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (recent) return recent;
    const id = randomUUID();
    return trx
      .insertInto('purchases')
      .values({
        id,
        user_id: input.userId,
        idempotency_key: `nonce:${input.userId}:${input.nonceHash}:${id}`,
        nonce_hash: input.nonceHash,
        pack_id: input.packId,
        amount_cents: input.amountCents,
        status: 'pending',
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

export async function getPurchase(db: Db, id: string): Promise<Purchase | undefined> {
  return db.selectFrom('purchases').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * Takes the right to call the provider for this purchase for leaseMs: only one caller at a time, and
 * none while an earlier call might still land. Returns the attempt number, or undefined when not taken.
 */
export async function claimPurchase(db: Db, id: string, leaseMs: number): Promise<number | undefined> {
  const row = await db
    .updateTable('purchases')
    .set({
      attempts: sql`attempts + 1`,
      lease_until: sql`now() + make_interval(secs => ${leaseMs / 1000})`,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', sql<Date>`now()`)]))
    .returning('attempts')
    .executeTakeFirst();
  return row?.attempts;
}

export async function releasePurchase(db: Db, id: string, error: string): Promise<void> {
  await db
    .updateTable('purchases')
    .set({ lease_until: null, error, updated_at: sql`now()` })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .execute();
}

/** Moves a pending purchase to its final state; false when it was no longer pending (someone else finished it). */
export async function finishPurchase(
  trx: Db,
  id: string,
  outcome: {
    status: 'succeeded' | 'declined' | 'failed';
    providerTransactionId: string | null;
    error: string | null;
  },
): Promise<boolean> {
  const row = await trx
    .updateTable('purchases')
    .set({
      status: outcome.status,
      provider_transaction_id: outcome.providerTransactionId,
      error: outcome.error,
      lease_until: null,
      updated_at: sql`now()`,
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .returning('id')
    .executeTakeFirst();
  return Boolean(row);
}

/** Pending purchases nobody is working on, older than minAgeMs: left by a crash or an abandoned retry. */
export async function abandonedPurchases(db: Db, minAgeMs: number, limit = 50): Promise<Purchase[]> {
  return db
    .selectFrom('purchases')
    .selectAll()
    .where('status', '=', 'pending')
    .where('created_at', '<', sql<Date>`now() - make_interval(secs => ${minAgeMs / 1000})`)
    .where((eb) => eb.or([eb('lease_until', 'is', null), eb('lease_until', '<', sql<Date>`now()`)]))
    .orderBy('created_at')
    .limit(limit)
    .execute();
}

/**
 * Completed purchases as their purchase.completed events said, for the game's reconciliation: oldest
 * completion first (the ledger's purchase transaction is the moment and the shares), paged by
 * (completedAt, purchaseId), the moment in milliseconds as JSON carries it.
 */
export async function completedPurchasesSince(
  db: Kysely<Database>,
  page: { since: Date; after?: { at: Date; id: string }; limit: number; roundPot: string; house: string },
): Promise<
  {
    id: string;
    user_id: string;
    pack_id: string;
    amount_cents: number;
    provider_transaction_id: string | null;
    completed_at: Date;
    pot_share_cents: number;
    house_share_cents: number;
  }[]
> {
  const after = page.after
    ? sql`and (date_trunc('milliseconds', t.created_at), p.id) > (${page.after.at}, ${page.after.id}::uuid)`
    : sql``;
  const { rows } = await sql<{
    id: string;
    user_id: string;
    pack_id: string;
    amount_cents: number;
    provider_transaction_id: string | null;
    completed_at: Date;
    pot_share_cents: string;
    house_share_cents: string;
  }>`
    select p.id, p.user_id, p.pack_id, p.amount_cents, p.provider_transaction_id,
      date_trunc('milliseconds', t.created_at) as completed_at,
      coalesce((select sum(e.amount_cents) from ledger_entries e
        where e.transaction_id = t.id and e.account_id = ${page.roundPot}), 0) as pot_share_cents,
      coalesce((select sum(e.amount_cents) from ledger_entries e
        where e.transaction_id = t.id and e.account_id = ${page.house}), 0) as house_share_cents
    from purchases p
    join ledger_transactions t on t.kind = 'purchase' and t.reference = 'purchase:' || p.id::text
    where p.status = 'succeeded' and t.created_at >= ${page.since} ${after}
    order by date_trunc('milliseconds', t.created_at), p.id
    limit ${page.limit}`.execute(db);
  return rows.map((r) => ({
    ...r,
    amount_cents: Number(r.amount_cents),
    pot_share_cents: Number(r.pot_share_cents),
    house_share_cents: Number(r.house_share_cents),
  }));
}
