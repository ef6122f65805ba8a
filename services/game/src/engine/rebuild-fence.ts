// The writes a rebuild reads, made with the step in Redis they record, as one step for the rebuild.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { lockStateWritesShared } from '../db/locks.repo.js';
import type { EngineHooks } from './types.js';

/** What a Redis step answers when it did nothing yet: fixed outside the fence (a rebuild waits for it). */
type Unsettled = 'state_missing' | 'user_not_loaded';
/** A Redis step's reply once it did its work (neither the state nor the user was missing). */
export type Done<R> = Exclude<R, Unsettled | { outcome: Unsettled }>;

const unsettled = (reply: string | { outcome: string }): boolean => {
  const outcome = typeof reply === 'string' ? reply : reply.outcome;
  return outcome === 'state_missing' || outcome === 'user_not_loaded';
};

/**
 * A Redis step and the Postgres record of what it did, under the state-writes lock held shared, which a
 * rebuild takes exclusive (round-state.ts): a rebuild reads Postgres either before the Redis step (which
 * then runs on the rebuilt state) or after the record, never between, where it would build a state
 * without what Redis had just done (a purchase's clicks and pot share, a take-back, a sign-up grant).
 */
export function underRebuildFence<R extends string | { outcome: string }>(
  db: Kysely<Database>,
  hooks: EngineHooks,
  redisStep: () => Promise<R>,
  record: (trx: Transaction<Database>, reply: Done<R>) => Promise<unknown>,
): Promise<R> {
  return db.transaction().execute(async (trx) => {
    await lockStateWritesShared(trx);
    const reply = await redisStep();
    if (unsettled(reply)) return reply;
    await hooks.beforeStateRecord?.();
    await record(trx, reply as Done<R>);
    return reply;
  });
}
