import { baseDeps, createRedis, type BaseDeps, type Redis } from '@omc/service-kit';
import type { Config } from './config.js';

export interface Deps extends BaseDeps {
  config: Config;
  /**
   * Rate limit counters; commands fail at once while Redis is away, and after 300 ms while it stalls (the
   * limit then lets traffic through).
   */
  redis: Redis;
}

export async function createDeps(config: Config): Promise<Deps> {
  const base = baseDeps({ name: 'gateway', logLevel: config.LOG_LEVEL });
  const redis = createRedis(
    config.REDIS_URL,
    // The request budget is best effort and on every request's path: a stalled Redis costs it 300 ms.
    { enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: 300 },
    base.log,
  );
  // Give Redis a moment, so the first requests are counted; a gateway still starts without it.
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 2000);
    redis.once('ready', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  return {
    ...base,
    config,
    redis,
    async close() {
      redis.disconnect();
    },
  };
}
