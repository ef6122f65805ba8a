import {
  baseDeps,
  connectStores,
  internalClientFrom,
  serviceCredentials,
  type InternalClient,
  type BaseDeps,
  type Metrics,
  type ServiceCredentials,
  type Stores,
} from '@omc/service-kit';
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

export interface Deps extends BaseDeps, Stores<Database> {
  config: Config;
  counters: AuthCounters;
  /** HTTP client for the profile's reads of the game and payments (global fetch; a test may hand in another). */
  fetch: typeof fetch;
  /** Signs auth's internal calls and checks its internal callers (service-credential.ts). */
  credentials: ServiceCredentials;
  /** Auth's calls to the game's and payments' internal routes. */
  internal: InternalClient;
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
  const stores = await connectStores<Database>({ name: 'auth', config, log: base.log });
  const credentials = serviceCredentials('auth', config);
  return {
    ...base,
    config,
    ...stores,
    counters: authCounters(base.metrics),
    fetch: globalThis.fetch,
    credentials,
    internal: internalClientFrom(credentials, config),
  };
}
