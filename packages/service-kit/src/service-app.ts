// The start every service's buildApp shares: the server, access tokens when the service checks them,
// /healthz and /readyz over the service's connections (whichever of db, redis and nats its deps hold),
// and /metrics.
import type { Kysely } from 'kysely';
import { registerTokens, type TokenKeys } from './auth.js';
import { pingDb } from './db.js';
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
}

export interface ServiceAppOptions extends Omit<ServerOptions, 'log'> {
  /** Verifies access tokens (and signs them, given the private key). */
  tokens?: TokenKeys;
}

export async function createServiceApp(deps: ServiceAppDeps, options: ServiceAppOptions): Promise<App> {
  const app = createServer({ ...options, log: deps.log });
  if (options.tokens) await registerTokens(app, options.tokens);
  const { db, redis, nats } = deps;
  const checks: Record<string, Check> = {};
  if (db) checks.postgres = () => pingDb(db);
  if (redis) checks.redis = () => pingRedis(redis);
  if (nats) checks.nats = () => pingNats(nats);
  registerHealth(app, checks);
  registerMetrics(app, deps.metrics);
  return app;
}
