// The start every service's buildApp shares: the server, access tokens when the service checks them,
// /healthz and /readyz over the service's connections (whichever of db, redis and nats its deps hold),
// and /metrics (on METRICS_PORT when it is set).
import type { Kysely } from 'kysely';
import { registerTokens, type TokenKeys } from './auth.js';
import { pingDb } from './health.repo.js';
import { registerInternalCallers, type ServiceCredentials } from './service-credential.js';
import { registerHealth, type Check } from './health.js';
import { registerMetrics, type Metrics } from './metrics.js';
import { pingNats, type Nats } from './nats.js';
import { pingRedis, type Redis } from './redis.js';
import type { Logger } from './logger.js';
import { createServer, type App, type ServerOptions } from './server.js';

/** What of a service's deps the app uses: its logger, its metrics, and the connections /readyz checks. */
export interface ServiceAppDeps {
  log: Logger;
  metrics: Metrics;
  db?: Kysely<any>;
  redis?: Redis;
  nats?: Nats;
  /** METRICS_PORT above 0: /metrics on a listener of its own (runService starts it), not on the app. */
  config?: { METRICS_PORT?: number };
}

export type Store = 'postgres' | 'redis' | 'nats';

export interface ServiceAppOptions extends Omit<ServerOptions, 'log'> {
  /** Verifies access tokens (and signs them, given the private key). */
  tokens?: TokenKeys;
  /**
   * Stores this service serves without (refusing fast what needs them): /readyz reports them but stays
   * ready while they are down. Unlisted stores make the pod unready while down.
   */
  readyWithout?: Store[];
  /** This service's credentials: its internal routes then accept only the callers their contract lists. */
  internalCallers?: ServiceCredentials;
  /** Further conditions of readiness, by name (e.g. a replay the pod must finish before it serves). */
  readyWhen?: Record<string, Check>;
}

export async function createServiceApp(deps: ServiceAppDeps, options: ServiceAppOptions): Promise<App> {
  const app = createServer({ ...options, log: deps.log });
  registerInternalCallers(app, options.internalCallers);
  if (options.tokens) await registerTokens(app, options.tokens);
  const { db, redis, nats } = deps;
  const stores: Partial<Record<Store, Check>> = {};
  if (db) stores.postgres = () => pingDb(db);
  if (redis) stores.redis = () => pingRedis(redis);
  if (nats) stores.nats = () => pingNats(nats);
  const checks: Record<string, Check> = { ...options.readyWhen };
  const reported: Record<string, Check> = {};
  for (const [name, check] of Object.entries(stores) as [Store, Check][])
    (options.readyWithout?.includes(name) ? reported : checks)[name] = check;
  registerHealth(app, checks, 1000, reported);
  const listener = deps.config?.METRICS_PORT
    ? createServer({ name: `${options.name}-metrics`, logger: options.logger, log: deps.log })
    : undefined;
  registerMetrics(app, deps.metrics, listener);
  return app;
}
