import {
  connectNats,
  createDb,
  createMetrics,
  createRedis,
  type Metrics,
  type Nats,
  type Redis,
  traceLogFields,
} from '@omc/service-kit';
import type { Kysely } from 'kysely';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/schema.js';

/** The part of a prom-client counter this service uses. */
interface Counter<L extends string> {
  inc(labels: Partial<Record<L, string>>, value?: number): void;
  inc(value?: number): void;
}

export interface AuthCounters {
  logins: Counter<'outcome'>;
  registrations: Counter<string>;
  refreshes: Counter<'outcome'>;
  eventsPublished: Counter<'subject'>;
}

export interface Deps {
  config: Config;
  db: Kysely<Database>;
  redis: Redis;
  nats: Nats;
  metrics: Metrics;
  counters: AuthCounters;
  log: Logger;
  clock: () => number;
  /** HTTP client for the game and payments calls (global fetch; a test may hand in another). */
  fetch: typeof fetch;
  close(): Promise<void>;
}

export function authCounters(metrics: Metrics): AuthCounters {
  return {
    logins: metrics.counter('auth_logins_total', 'Login attempts by outcome', ['outcome']),
    registrations: metrics.counter('auth_registrations_total', 'Accounts registered'),
    refreshes: metrics.counter('auth_refresh_total', 'Refresh attempts by outcome', ['outcome']),
    eventsPublished: metrics.counter('auth_events_published_total', 'Events published from the outbox', [
      'subject',
    ]),
  };
}

export async function createDeps(config: Config): Promise<Deps> {
  const log = pino({ level: config.LOG_LEVEL, base: { service: 'auth' }, mixin: traceLogFields });
  const db = createDb<Database>(config.DATABASE_URL, { name: 'auth', max: 20 });
  const redis = createRedis(config.REDIS_URL);
  const nats = await connectNats(config.NATS_URL, 'auth');
  const metrics = createMetrics('auth');
  return {
    config,
    db,
    redis,
    nats,
    metrics,
    counters: authCounters(metrics),
    log,
    clock: () => Date.now(),
    fetch: globalThis.fetch,
    async close() {
      await nats.close();
      redis.disconnect();
      await db.destroy();
    },
  };
}
