// The start every service's buildApp shares: the server, access tokens when the service checks them,
// /healthz and /readyz over the service's own connections, and /metrics.
import type { Kysely } from 'kysely';
import { registerTokens, type TokenKeys } from './auth.js';
import { pingDb } from './db.js';
import { registerHealth, type Check } from './health.js';
import { registerMetrics, type Metrics } from './metrics.js';
import { pingNats, type Nats } from './nats.js';
import { pingRedis, type Redis } from './redis.js';
import { createServer, type App, type ServerOptions } from './server.js';

/** The connections /readyz checks, by the name it reports them under. */
export interface Readiness {
  postgres?: Kysely<any>;
  redis?: Redis;
  nats?: Nats;
}

export interface ServiceAppOptions extends ServerOptions {
  metrics: Metrics;
  ready: Readiness;
  /** Verifies access tokens (and signs them, given the private key). */
  tokens?: TokenKeys;
}

export async function createServiceApp(options: ServiceAppOptions): Promise<App> {
  const app = createServer(options);
  if (options.tokens) await registerTokens(app, options.tokens);
  const { postgres, redis, nats } = options.ready;
  const checks: Record<string, Check> = {};
  if (postgres) checks.postgres = () => pingDb(postgres);
  if (redis) checks.redis = () => pingRedis(redis);
  if (nats) checks.nats = () => pingNats(nats);
  registerHealth(app, checks);
  registerMetrics(app, options.metrics);
  return app;
}
