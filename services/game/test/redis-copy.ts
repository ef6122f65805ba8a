// Taking a copy of every key of a Redis and putting it back later, as an operator restoring a snapshot
// (or a failover to a replica that lagged) does to the game.
import { Redis } from 'ioredis';

export interface RedisCopy {
  /** Replaces everything Redis holds with the copy. */
  restore(): Promise<void>;
}

export async function copyRedis(url: string): Promise<RedisCopy> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  const dumps: [string, Buffer][] = [];
  try {
    for (const key of await redis.keys('*')) {
      const dump = await redis.dumpBuffer(key);
      if (dump) dumps.push([key, dump]);
    }
  } finally {
    redis.disconnect();
  }
  return {
    async restore() {
      const client = new Redis(url, { maxRetriesPerRequest: 1 });
      try {
        await client.flushall();
        for (const [key, dump] of dumps) await client.restore(key, 0, dump, 'REPLACE');
      } finally {
        client.disconnect();
      }
    },
  };
}
