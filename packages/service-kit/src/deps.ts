// What every service's createDeps shares: one logger (also Fastify's), its metrics registry, a clock,
// and a close that ends each connection in turn.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { createDb } from './db.js';
import { createLogger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';
import { connectNats, type Nats } from './nats.js';
import { createRedis, type Redis, type RedisOptions } from './redis.js';

export interface BaseDeps {
  log: Logger;
  metrics: Metrics;
  clock: () => number;
  close(): Promise<void>;
}

export interface BaseDepsOptions {
  name: string;
  logLevel: string;
  /** Extra fields on every log line (e.g. a realtime instance's name). */
  logBase?: Record<string, unknown>;
}

export function baseDeps(options: BaseDepsOptions): Omit<BaseDeps, 'close'> {
  return {
    log: createLogger(options.name, options.logLevel, options.logBase),
    metrics: createMetrics(options.name),
    clock: () => Date.now(),
  };
}

/** A close() that runs each step in order, even when an earlier one fails (the first failure is thrown). */
export function closeInOrder(...steps: Array<() => unknown>): () => Promise<void> {
  return async () => {
    const failures: unknown[] = [];
    for (const step of steps)
      await Promise.resolve()
        .then(step)
        .catch((error) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  };
}

export interface Stores<DB> {
  db: Kysely<DB>;
  redis: Redis;
  nats: Nats;
}

/** Postgres, Redis and NATS as a service that uses all three holds them, and a close that ends each. */
export async function connectStores<DB>(options: {
  name: string;
  config: { DATABASE_URL: string; REDIS_URL: string; NATS_URL: string };
  redis?: RedisOptions;
  /** Where connection errors are logged, once per outage. */
  log?: Logger;
}): Promise<Stores<DB> & { close(): Promise<void> }> {
  const db = createDb<DB>(options.config.DATABASE_URL, { name: options.name, max: 20, log: options.log });
  const redis = createRedis(options.config.REDIS_URL, options.redis, options.log);
  const nats = await connectNats(options.config.NATS_URL, options.name);
  return {
    db,
    redis,
    nats,
    close: closeInOrder(
      () => nats.close(),
      () => redis.disconnect(),
      () => db.destroy(),
    ),
  };
}
