// One click through the click batch script on a hash of its own, for a user record written as given:
// how the script judges a click, without a running game.
import { createRedis, type Redis } from '@omc/service-kit';
import { testInfra } from '@omc/testkit';
import { gameRedis } from '../src/engine/redis-commands.js';
import type { ClickResult } from '../src/engine/redis/click-batch.js';

export const SCRIPT_ROUND = 3;

export interface ClickScript {
  /** One click by a user whose record holds these fields (no free clicks unless given). */
  click(user: Record<string, unknown>): Promise<ClickResult>;
  close(): void;
}

export function clickScript(hash: string): ClickScript {
  const redis: Redis = createRedis(testInfra().redisUrl);
  const scripts = gameRedis(redis);
  return {
    async click(user) {
      await redis.del(hash);
      const record = { loaded: 1, version: 1, granted: 0, passRound: 0, ...user };
      await redis.hset(hash, { round: SCRIPT_ROUND, clicks: 0, pot: 0, epoch: 'e1', seq: 0 });
      await redis.hset(hash, 'u1', JSON.stringify(record));
      const reply = await scripts.clickBatch([hash], [Date.now(), 1000, 10, 0, '', 'u1', 0], 1);
      if (reply.stateMissing) throw new Error('the test state is missing');
      return reply.clicks[0]!;
    },
    close: () => redis.disconnect(),
  };
}
