// Transactional outbox: an event is written in the same transaction as the change it announces, and a
// relay publishes it to JetStream afterwards (with its id as Nats-Msg-Id, so a re-publish after a crash
// is dropped as a duplicate). Nothing is lost if NATS or the process is down at the time of the change.
import type { EventEnvelope, Subject } from '@omc/contracts';
import { sql, type ColumnType, type Generated, type Kysely, type Migration, type Transaction } from 'kysely';
import type { Logger } from 'pino';
import { publishEvent, type Nats } from './nats.js';
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
      await sql`create index outbox_unpublished on outbox (created_at) where published_at is null`.execute(db);
      await db.schema
        .createTable('processed_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('processed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
    },
  },
};

type Db = Kysely<OutboxTable> | Transaction<OutboxTable>;

export async function enqueueEvent<S extends Subject>(trx: Db, event: EventEnvelope<S>): Promise<void> {
  const trace = traceCarrier();
  const payload = JSON.stringify(trace ? { ...event, [TRACE_KEY]: trace } : event);
  await trx.insertInto('outbox').values({ id: event.id, subject: event.subject, payload }).execute();
}

/**
 * Runs `work` once per event id: inside one transaction, records the id and does the work; a
 * redelivered event finds its id recorded and is skipped. Returns false when it was a duplicate.
 */
export async function processOnce<DB>(db: Kysely<DB>, event: EventEnvelope, work: (trx: Transaction<DB>) => Promise<void>): Promise<boolean> {
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

export function startOutboxRelay(db: Kysely<any>, nats: Nats, log: Logger, options: { intervalMs?: number; onPublished?: (subject: string) => void } = {}): OutboxRelay {
  const outboxDb = db as Kysely<OutboxTable>;
  const interval = options.intervalMs ?? 200;
  let stopped = false;
  let wake: (() => void) | undefined;
  let running: Promise<void> = Promise.resolve();

  const publishBatch = async (): Promise<number> =>
    outboxDb.transaction().execute(async (trx) => {
      const rows = await trx
        .selectFrom('outbox')
        .select(['id', 'subject', 'payload'])
        .where('published_at', 'is', null)
        .orderBy('created_at')
        .limit(100)
        .forUpdate()
        .skipLocked()
        .execute();
      const published: string[] = [];
      for (const row of rows) {
        try {
          const { [TRACE_KEY]: trace, ...event } = row.payload as EventEnvelope & { [TRACE_KEY]?: Record<string, string> };
          await publishTraced(row.subject, trace, (headers) => publishEvent(nats.js, event as EventEnvelope, headers));
          published.push(row.id);
          options.onPublished?.(row.subject);
        } catch (error) {
          log.warn({ err: error, subject: row.subject }, 'outbox publish failed; will retry');
          break;
        }
      }
      if (published.length > 0) {
        await trx.updateTable('outbox').set({ published_at: new Date() }).where('id', 'in', published).execute();
      }
      return published.length;
    });

  const loop = async () => {
    while (!stopped) {
      let count = 0;
      try {
        count = await publishBatch();
      } catch (error) {
        log.warn({ err: error }, 'outbox relay pass failed');
      }
      if (count === 100) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, interval);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  };
  running = loop();

  const backlog = async () => {
    const row = await outboxDb.selectFrom('outbox').select((eb) => eb.fn.countAll<number>().as('n')).where('published_at', 'is', null).executeTakeFirst();
    return Number(row?.n ?? 0);
  };

  return {
    nudge: () => wake?.(),
    backlog,
    async drain(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      while ((await backlog()) > 0) {
        if (Date.now() > deadline) throw new Error('outbox did not drain in time');
        wake?.();
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      stopped = true;
      wake?.();
      await running;
    },
  };
}
