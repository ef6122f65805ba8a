import { createServiceApp } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { Deps } from './deps.js';
import { attachLive, type Live } from './live/live-server.js';

export interface RealtimeApp extends FastifyInstance {
  realtime: {
    deps: Deps;
    /** The live server, once start() attached it. */
    live: Live | null;
  };
}

export async function buildApp(deps: Deps, options: { logger?: false } = {}): Promise<RealtimeApp> {
  const app = await createServiceApp(deps, {
    name: 'realtime',
    logger: options.logger,
    // Sockets are served through a stall of either: without Redis each pod still fans out to its own
    // sockets, without NATS they keep the last state until it returns.
    readyWithout: ['redis', 'nats'],
  });
  app.decorate('realtime', { deps, live: null });
  return app as RealtimeApp;
}

/** Attaches Socket.IO and starts the feeds, the user count and the ticks. */
export async function start(app: RealtimeApp): Promise<void> {
  const live = await attachLive(app, app.realtime.deps);
  app.realtime.live = live;
  // Start-up waits (briefly) for the round won consumer, so no winner announced after /readyz is missed.
  await Promise.race([live.winnersReady, new Promise((r) => setTimeout(r, 5000).unref())]);
}
