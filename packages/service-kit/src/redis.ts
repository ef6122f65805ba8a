import { Redis, type RedisOptions } from 'ioredis';

/** A Redis client that keeps reconnecting and fails commands fast while disconnected. */
export function createRedis(url: string, options: RedisOptions = {}): Redis {
  const client = new Redis(url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(50 * times, 1000),
    lazyConnect: false,
    ...options,
  });
  client.on('error', () => undefined);
  return client;
}

export async function pingRedis(client: Redis): Promise<void> {
  if (client.status !== 'ready') throw new Error(`redis ${client.status}`);
  await client.ping();
}

export type { Redis, RedisOptions };
