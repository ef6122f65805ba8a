import {
  baseDeps,
  closeInOrder,
  connectNats,
  createDb,
  createRedis,
  type BaseDeps,
  type Metrics,
  type Nats,
  type Redis,
} from '@omc/service-kit';
import type { Kysely } from 'kysely';
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

export interface Deps extends BaseDeps {
  config: Config;
  db: Kysely<Database>;
  redis: Redis;
  nats: Nats;
  counters: AuthCounters;
  /** HTTP client for the game and payments calls (global fetch; a test may hand in another). */
  fetch: typeof fetch;
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
  const base = baseDeps({ name: 'auth', logLevel: config.LOG_LEVEL });
  const db = createDb<Database>(config.DATABASE_URL, { name: 'auth', max: 20 });
  const redis = createRedis(config.REDIS_URL);
  const nats = await connectNats(config.NATS_URL, 'auth');
  return {
    ...base,
    config,
    db,
    redis,
    nats,
    counters: authCounters(base.metrics),
    fetch: globalThis.fetch,
    close: closeInOrder(
      () => nats.close(),
      () => redis.disconnect(),
      () => db.destroy(),
    ),
  };
}
