import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import { outageLog } from './outage.js';
import { STORE_DEADLINES } from './store-deadline.js';

/**
 * A Redis client that keeps reconnecting, fails commands fast while disconnected and fails a command
 * still unanswered after `commandTimeout` (a stalled Redis; a subscriber passes `commandTimeout:
 * undefined`); its connection errors are logged once per outage when a logger is given.
 */
export function createRedis(url: string, options: RedisOptions = {}, log?: Logger): Redis {
  const client = new Redis(url, {
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    connectTimeout: 2000,
    commandTimeout: STORE_DEADLINES.redisCommandMs,
    retryStrategy: (times) => Math.min(50 * times, 1000),
    lazyConnect: false,
    ...options,
  });
  const outage = outageLog(log, 'redis');
  client.on('error', (error) => outage.failed(error));
  client.on('ready', () => outage.recovered());
  return client;
}

export async function pingRedis(client: Redis): Promise<void> {
  if (client.status !== 'ready') throw new Error(`redis ${client.status}`);
  await client.ping();
}

export type { Redis, RedisOptions };
