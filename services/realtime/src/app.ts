import { createServer, pingNats, pingRedis, registerHealth, registerMetrics } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { Deps } from './deps.js';
import { attachLive, type Live } from './live/live-server.js';

export interface RealtimeApp {
  app: FastifyInstance;
  live: Live;
}

export async function buildApp(deps: Deps, options: { logger?: boolean } = {}): Promise<FastifyInstance> {
  return (await buildRealtime(deps, options)).app;
}

/** The app and its live server (tests reach into the latter). */
export async function buildRealtime(deps: Deps, options: { logger?: boolean } = {}): Promise<RealtimeApp> {
  const app = createServer({
    name: 'realtime',
    logLevel: deps.config.LOG_LEVEL,
    ...(options.logger === false ? { logger: false } : {}),
  });
  registerHealth(app, {
    redis: () => pingRedis(deps.redis),
    nats: () => pingNats(deps.nats),
  });
  registerMetrics(app, deps.metrics);
  const live = await attachLive(app, deps);
  // Start-up waits (briefly) for the round won consumer, so no winner announced after /readyz is missed.
  await Promise.race([live.winnersReady, new Promise((r) => setTimeout(r, 5000).unref())]);
  return { app, live };
}
