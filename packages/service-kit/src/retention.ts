// Tables that only grew: published outbox rows and processed-event marks are deleted once older than
// their retention, in small batches, by one loop per service (several replicas may run it: each batch is
// one statement). The marks must outlive anything JetStream could still deliver again: a consumer that
// is recreated replays its stream from the start, and the stream keeps an event STREAM_MAX_AGE_MS.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { STREAM_MAX_AGE_MS } from './nats.js';
import { deleteProcessedBefore, deletePublishedBefore, type OutboxTable } from './outbox.repo.js';
import { startPollLoop, type PollLoop } from './poll-loop.js';
import { env } from './config.js';
import { z } from 'zod';

/** The retention settings every service with an outbox takes (its config.ts extends with these). */
export const retentionEnvSchema = z.object({
  /** How long a published outbox row is kept (JetStream deduplicates re-publishes within 10 minutes). */
  OUTBOX_RETENTION_HOURS: env.int(24, 1, 24 * 365),
  /** How long a processed event's mark is kept: longer than the streams keep events (30 days). */
  PROCESSED_EVENTS_RETENTION_DAYS: env.int(31, Math.ceil(STREAM_MAX_AGE_MS / 86_400_000) + 1, 3650),
  /** How often the retention pass runs. */
  RETENTION_INTERVAL_MS: env.int(10 * 60_000, 1000, 24 * 3600_000),
});

const BATCH = 1000;

/** Deletes published outbox rows and processed-event marks older than their retention; the rows deleted. */
export async function pruneEventTables(
  db: Kysely<any>,
  now: number,
  retention: { outboxMs: number; processedMs: number },
): Promise<number> {
  const outboxDb = db as Kysely<OutboxTable>;
  let deleted = 0;
  for (;;) {
    const rows = await deletePublishedBefore(outboxDb, new Date(now - retention.outboxMs), BATCH);
    deleted += rows;
    if (rows < BATCH) break;
  }
  for (;;) {
    const rows = await deleteProcessedBefore(outboxDb, new Date(now - retention.processedMs), BATCH);
    deleted += rows;
    if (rows < BATCH) break;
  }
  return deleted;
}

/**
 * Runs the retention pass every RETENTION_INTERVAL_MS: the event tables, and whatever else the service
 * bounds (`also`: its own tables or sets; each returns what it deleted).
 */
export function startRetention(options: {
  db: Kysely<any>;
  log: Logger;
  clock: () => number;
  config: z.infer<typeof retentionEnvSchema>;
  also?: () => Promise<number>;
}): PollLoop {
  const { config } = options;
  return startPollLoop(
    async () => {
      const deleted =
        (await pruneEventTables(options.db, options.clock(), {
          outboxMs: config.OUTBOX_RETENTION_HOURS * 3_600_000,
          processedMs: config.PROCESSED_EVENTS_RETENTION_DAYS * 86_400_000,
        })) + ((await options.also?.()) ?? 0);
      if (deleted > 0) options.log.info({ deleted }, 'retention: old rows deleted');
      return false;
    },
    { intervalMs: config.RETENTION_INTERVAL_MS, log: options.log, failureMessage: 'retention pass failed' },
  );
}
