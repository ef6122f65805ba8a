import { migrateToLatest, pingDb, pingNats, pingRedis, registerHealth, registerMetrics, registerTokens, createServer } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import { migrations } from './db/migrations/index.js';
import type { Deps } from './deps.js';
import { stateRoutes } from './state/state.routes.js';

export async function buildApp(deps: Deps, options: { logger?: boolean } = {}): Promise<FastifyInstance> {
  const app = createServer({ name: 'game', logLevel: deps.config.LOG_LEVEL, ...(options.logger === false ? { logger: false } : {}) });
  await migrateToLatest(deps.db, migrations);
  await registerTokens(app, { publicKey: deps.config.JWT_PUBLIC_KEY });
  registerHealth(app, {
    postgres: () => pingDb(deps.db),
    redis: () => pingRedis(deps.redis),
    nats: () => pingNats(deps.nats),
  });
  registerMetrics(app, deps.metrics);
  await app.register(async (scope) => stateRoutes(scope, deps));
  return app;
}
