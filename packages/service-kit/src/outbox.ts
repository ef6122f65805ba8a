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
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import { publishEvent, type Nats } from './nats.js';
import {
  claimUnpublished,
  countUnpublished,
  insertOutboxRow,
  markPublished,
  recordProcessed,
  releaseClaims,
  type OutboxTable,
} from './outbox.repo.js';
import { startPollLoop } from './poll-loop.js';
import { backoff, RETRY_POLICIES } from './retry.js';
import { publishTraced, traceCarrier } from './tracing.js';

/** Where an outbox row keeps the trace context of the change it announces (not part of the event). */
const TRACE_KEY = '$trace';

export type { OutboxTable } from './outbox.repo.js';
export { kitMigrations } from './migrations/kit-outbox.js';

/** Writes the event to the outbox in the caller's transaction (of any database that has the kit's tables). */
export async function enqueueEvent<S extends Subject, DB extends OutboxTable = OutboxTable>(
  trx: Kysely<DB> | Transaction<DB>,
  event: EventEnvelope<S>,
): Promise<void> {
  const trace = traceCarrier();
  const payload = JSON.stringify(trace ? { ...event, [TRACE_KEY]: trace } : event);
  await insertOutboxRow(trx as unknown as Transaction<OutboxTable>, {
    id: event.id,
    subject: event.subject,
    payload,
  });
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
    if (!(await recordProcessed(trx, event))) return false;
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

/** Events in a service's outbox not yet published (its /metrics gauge reads it at each scrape). */
export function outboxBacklog(db: Kysely<any>): Promise<number> {
  return countUnpublished(db as Kysely<OutboxTable>);
}

export function startOutboxRelay(
  db: Kysely<any>,
  nats: Nats,
  log: Logger,
  options: { intervalMs?: number; onPublished?: (subject: string) => void } = {},
): OutboxRelay {
  const outboxDb = db as Kysely<OutboxTable>;

  /** One pass; true when it found a full batch (more may be waiting). */
  const pass = async (): Promise<boolean> => {
    // Step 1: the oldest rows nobody holds, for CLAIM_MS.
    const rows = await claimUnpublished(outboxDb, CLAIM_MS, BATCH);
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
      await markPublished(outboxDb, published);
    }
    if (failed.length > 0) {
      await releaseClaims(outboxDb, failed);
      return false;
    }
    return rows.length === BATCH;
  };

  const loop = startPollLoop(pass, {
    intervalMs: options.intervalMs ?? 200,
    log,
    failureMessage: 'outbox relay pass failed',
  });

  const backlog = () => outboxBacklog(db);

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
