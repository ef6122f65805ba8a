// The only code that reads and writes the kit's tables: the outbox (events waiting for the relay) and
// processed_events (the ids a consumer has handled). Their layout is migrations/kit-outbox.ts.
import { sql, type ColumnType, type Generated, type Kysely, type Transaction } from 'kysely';

export interface OutboxTable {
  outbox: {
    id: string;
    subject: string;
    payload: unknown;
    created_at: Generated<Date>;
    published_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
    attempts: Generated<number>;
    /** Until when a relay has this row to itself (null: nobody). */
    claimed_until: ColumnType<Date | null, Date | null | undefined, Date | null>;
  };
  processed_events: {
    id: string;
    subject: string;
    processed_at: Generated<Date>;
  };
}

type Db = Kysely<OutboxTable> | Transaction<OutboxTable>;

/** An outbox row as the relay publishes it. */
export interface ClaimedRow {
  id: string;
  subject: string;
  payload: unknown;
}

/**
 * Writes one outbox row. clock_timestamp(), not the column's now(): events written in one transaction
 * keep the order written.
 */
export async function insertOutboxRow(
  db: Db,
  row: { id: string; subject: string; payload: string },
): Promise<void> {
  await db
    .insertInto('outbox')
    .values({ id: row.id, subject: row.subject, payload: row.payload, created_at: sql`clock_timestamp()` })
    .execute();
}

/** Records the event id as processed; false when it already was (a redelivery). */
export async function recordProcessed(
  trx: Transaction<OutboxTable>,
  event: { id: string; subject: string },
): Promise<boolean> {
  const inserted = await trx
    .insertInto('processed_events')
    .values({ id: event.id, subject: event.subject })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/**
 * Takes the oldest `limit` unpublished rows nobody holds (or whose claim expired) for `claimMs`, in the
 * order written: one statement, its own transaction; SKIP LOCKED keeps two relays off the same rows.
 */
export async function claimUnpublished(db: Db, claimMs: number, limit: number): Promise<ClaimedRow[]> {
  const { rows } = await sql<ClaimedRow>`
      with claimed as (
        update outbox set claimed_until = now() + ${`${claimMs} milliseconds`}::interval, attempts = attempts + 1
        where id in (
          select id from outbox
          where published_at is null and (claimed_until is null or claimed_until < now())
          order by created_at
          limit ${limit}
          for update skip locked
        )
        returning id, subject, payload, created_at
      )
      select id, subject, payload from claimed order by created_at`.execute(db);
  return rows;
}

export async function markPublished(db: Db, ids: string[]): Promise<void> {
  await db
    .updateTable('outbox')
    .set({ published_at: new Date(), claimed_until: null })
    .where('id', 'in', ids)
    .execute();
}

/** Lets the rows go: the next pass claims them again. */
export async function releaseClaims(db: Db, ids: string[]): Promise<void> {
  await db.updateTable('outbox').set({ claimed_until: null }).where('id', 'in', ids).execute();
}

export async function countUnpublished(db: Db): Promise<number> {
  const row = await db
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('published_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

/** Deletes at most `limit` outbox rows published before `before`; the rows deleted. */
export async function deletePublishedBefore(db: Db, before: Date, limit: number): Promise<number> {
  const { numAffectedRows } = await sql`
      delete from outbox where id in (
        select id from outbox where published_at < ${before} limit ${limit}
      )`.execute(db);
  return Number(numAffectedRows ?? 0);
}

/** Deletes at most `limit` processed-event marks made before `before`; the rows deleted. */
export async function deleteProcessedBefore(db: Db, before: Date, limit: number): Promise<number> {
  const { numAffectedRows } = await sql`
      delete from processed_events where id in (
        select id from processed_events where processed_at < ${before} limit ${limit}
      )`.execute(db);
  return Number(numAffectedRows ?? 0);
}
