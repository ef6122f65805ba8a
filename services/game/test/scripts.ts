// The game's Lua scripts on the shared test Redis, without a running game: a describe block gets a
// connection with the scripts loaded and a hash of its own, emptied before each test.
import { createRedis, type Redis } from '@omc/service-kit';
import { testInfra } from '@omc/testkit';
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { gameRedis, type GameRedis } from '../src/engine/redis-commands.js';
import type { ClickResult } from '../src/engine/redis/click-batch.js';

export interface ScriptHash {
  readonly redis: Redis;
  readonly scripts: GameRedis;
}

/** Call in a describe block: connects before its tests, empties `hash` before each, disconnects after. */
export function useScriptHash(hash: string): ScriptHash {
  const ctx = {} as { redis: Redis; scripts: GameRedis };
  beforeAll(() => {
    ctx.redis = createRedis(testInfra().redisUrl);
    ctx.scripts = gameRedis(ctx.redis);
  });
  beforeEach(async () => {
    await ctx.redis.del(hash);
  });
  afterAll(() => ctx.redis?.disconnect());
  return ctx;
}

export const SCRIPT_ROUND = 3;

/**
 * Call in a describe block: one click through the click batch script, by a user whose record holds
 * the given fields (no free clicks unless given), in round SCRIPT_ROUND.
 */
export function useClickScript(hash: string): (user: Record<string, unknown>) => Promise<ClickResult> {
  const t = useScriptHash(hash);
  return async (user) => {
    await t.redis.del(hash);
    const record = { loaded: 1, version: 1, granted: 0, passRound: 0, ...user };
    await t.redis.hset(hash, { round: SCRIPT_ROUND, clicks: 0, pot: 0, epoch: 'e1', seq: 0 });
    await t.redis.hset(hash, 'u1', JSON.stringify(record));
    const reply = await t.scripts.clickBatch([hash], [Date.now(), 1000, 10, 0, '', 0, 0, 'u1', 0, 0], 1);
    if (reply.stateMissing || reply.journalFull || reply.expired)
      throw new Error('the test state is missing');
    return reply.clicks[0]!;
  };
}
