// Transactional outbox: an event is written in the same transaction as the change it announces, and a
// relay publishes it to JetStream afterwards (with its id as Nats-Msg-Id, so a re-publish after a crash
// is dropped as a duplicate). Nothing is lost if NATS or the process is down at the time of the change.
//
// The relay holds no transaction while it waits for JetStream. A pass has three short steps:
// 1. claim: one UPDATE takes the oldest unpublished rows nobody has claimed (or whose claim expired) and
//    stamps them claimed_until = now + CLAIM_MS; SKIP LOCKED keeps two relays from taking the same rows;
// 2. publish: every claimed event at once, in the order written (one connection, so JetStream stores them
//    in that order), each with its id as Nats-Msg-Id;
// 3. mark: the acknowledged rows get published_at; the failed ones lose their claim and go again.
// A relay that dies between 1 and 3 leaves its claim to expire; the next relay re-publishes those rows and
// JetStream drops the ones it already has (the stream's duplicate window, 10 minutes, outlasts the claim).
// Consumers rely on nothing more than that: each handles an event once by its id, and one that arrives
// before what it depends on (a user's change before the user) fails and is redelivered later.
import type { EventEnvelope, Subject } from '@omc/contracts';
import { sql, type ColumnType, type Generated, type Kysely, type Migration, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import { publishEvent, type Nats } from './nats.js';
import { startPollLoop } from './poll-loop.js';
import { backoff, RETRY_POLICIES } from './retry.js';
import { publishTraced, traceCarrier } from './tracing.js';

/** Where an outbox row keeps the trace context of the change it announces (not part of the event). */
const TRACE_KEY = '$trace';

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

/** Migrations every service that publishes or consumes durable events includes in its own list. */
export const kitMigrations: Record<string, Migration> = {
  '0000_kit_outbox': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('outbox')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('payload', 'jsonb', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('published_at', 'timestamptz')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`create index outbox_unpublished on outbox (created_at) where published_at is null`.execute(
        db,
      );
      await db.schema
        .createTable('processed_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('processed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('processed_events').execute();
      await db.schema.dropTable('outbox').execute();
    },
  },
  '0000_kit_outbox_claim': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('outbox').addColumn('claimed_until', 'timestamptz').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('outbox').dropColumn('claimed_until').execute();
    },
  },
};

type Db = Kysely<OutboxTable> | Transaction<OutboxTable>;

/** Writes the event to the outbox in the caller's transaction (of any database that has the kit's tables). */
export async function enqueueEvent<S extends Subject, DB extends OutboxTable = OutboxTable>(
  trx: Kysely<DB> | Transaction<DB>,
  event: EventEnvelope<S>,
): Promise<void> {
  const trace = traceCarrier();
  const payload = JSON.stringify(trace ? { ...event, [TRACE_KEY]: trace } : event);
  // clock_timestamp(), not the column's now(): events written in one transaction keep the order written.
  await (trx as unknown as Db)
    .insertInto('outbox')
    .values({ id: event.id, subject: event.subject, payload, created_at: sql`clock_timestamp()` })
    .execute();
}

/**
 * Runs `work` once per event id: inside one transaction, records the id and does the work; a
 * redelivered event finds its id recorded and is skipped. Returns false when it was a duplicate.
 */
export async function processOnce<DB>(
  db: Kysely<DB>,
  event: EventEnvelope,
  work: (trx: Transaction<DB>) => Promise<void>,
): Promise<boolean> {
  return (db as unknown as Kysely<OutboxTable>).transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto('processed_events')
      .values({ id: event.id, subject: event.subject })
      .onConflict((oc) => oc.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (!inserted) return false;
    await work(trx as unknown as Transaction<DB>);
    return true;
  });
}

export interface OutboxRelay {
  /** Publish now rather than at the next poll. */
  nudge(): void;
  /** Unpublished events, for /metrics and tests. */
  backlog(): Promise<number>;
  /** Resolves when everything enqueued so far is published (tests). */
  drain(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Rows one pass claims. */
const BATCH = 100;
/**
 * How long a claim keeps other relays off a row: twice a publish's timeout (5 s). The rows a crashed relay
 * had claimed go out again after that.
 */
const CLAIM_MS = 10_000;

interface ClaimedRow {
  id: string;
  subject: string;
  payload: unknown;
}

export function startOutboxRelay(
  db: Kysely<any>,
  nats: Nats,
  log: Logger,
  options: { intervalMs?: number; onPublished?: (subject: string) => void } = {},
): OutboxRelay {
  const outboxDb = db as Kysely<OutboxTable>;

  /** Step 1: takes the oldest rows nobody holds, for CLAIM_MS (one statement, its own transaction). */
  const claim = async (): Promise<ClaimedRow[]> => {
    const { rows } = await sql<ClaimedRow>`
      with claimed as (
        update outbox set claimed_until = now() + ${`${CLAIM_MS} milliseconds`}::interval, attempts = attempts + 1
        where id in (
          select id from outbox
          where published_at is null and (claimed_until is null or claimed_until < now())
          order by created_at
          limit ${BATCH}
          for update skip locked
        )
        returning id, subject, payload, created_at
      )
      select id, subject, payload from claimed order by created_at`.execute(outboxDb);
    return rows;
  };

  /** One pass; true when it found a full batch (more may be waiting). */
  const pass = async (): Promise<boolean> => {
    const rows = await claim();
    if (rows.length === 0) return false;
    // Step 2: all at once; nats.js writes them to the connection in this order.
    const results = await Promise.allSettled(
      rows.map((row) => {
        const { [TRACE_KEY]: trace, ...event } = row.payload as EventEnvelope & {
          [TRACE_KEY]?: Record<string, string>;
        };
        return publishTraced(row.subject, trace, (headers) =>
          publishEvent(nats.js, event as EventEnvelope, headers),
        );
      }),
    );
    const published: string[] = [];
    const failed: string[] = [];
    results.forEach((result, i) => {
      const row = rows[i]!;
      if (result.status === 'fulfilled') {
        published.push(row.id);
        options.onPublished?.(row.subject);
      } else {
        failed.push(row.id);
        log.warn({ err: result.reason, subject: row.subject }, 'outbox publish failed; will retry');
      }
    });
    // Step 3.
    if (published.length > 0) {
      await outboxDb
        .updateTable('outbox')
        .set({ published_at: new Date(), claimed_until: null })
        .where('id', 'in', published)
        .execute();
    }
    if (failed.length > 0) {
      await outboxDb.updateTable('outbox').set({ claimed_until: null }).where('id', 'in', failed).execute();
      return false;
    }
    return rows.length === BATCH;
  };

  const loop = startPollLoop(pass, {
    intervalMs: options.intervalMs ?? 200,
    log,
    failureMessage: 'outbox relay pass failed',
  });

  const backlog = async () => {
    const row = await outboxDb
      .selectFrom('outbox')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('published_at', 'is', null)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  };

  return {
    nudge: () => loop.nudge(),
    backlog,
    async drain(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      for (let attempt = 0; (await backlog()) > 0; attempt += 1) {
        if (Date.now() > deadline) throw new Error('outbox did not drain in time');
        loop.nudge();
        await backoff(RETRY_POLICIES.outboxDrain, attempt);
      }
    },
    stop: () => loop.stop(),
  };
}
