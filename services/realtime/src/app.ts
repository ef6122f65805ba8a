import { createServiceApp, startedHandle, type Started } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { Deps } from './deps.js';
import { attachLive, type Live } from './live/live-server.js';

export interface RealtimeApp extends FastifyInstance {
  realtime: { deps: Deps };
}

/** The live server start() attached; stop() moves its sockets away and stops its feeds and ticks. */
export interface RealtimeStarted extends Started {
  live: Live;
}

export async function buildApp(deps: Deps, options: { logger?: false } = {}): Promise<RealtimeApp> {
  const app = await createServiceApp(deps, {
    name: 'realtime',
    logger: options.logger,
    // Sockets are served through a stall of either: without Redis each pod still fans out to its own
    // sockets, without NATS they keep the last state until it returns.
    readyWithout: ['redis', 'nats'],
  });
  app.decorate('realtime', { deps });
  return app as RealtimeApp;
}

/** Attaches Socket.IO and starts the feeds, the user count and the ticks. */
export async function start(app: RealtimeApp): Promise<RealtimeStarted> {
  const live = await attachLive(app, app.realtime.deps);
  const started = startedHandle({ live }, () => live.close());
  // Closing the app moves the sockets away while the listener still answers (preClose), before it
  // closes; the handle's stop() after that has nothing left to do.
  app.addHook('preClose', started.stop);
  // Start-up waits (briefly) for the round won consumer, so no winner announced after /readyz is missed.
  await Promise.race([live.winnersReady, new Promise((r) => setTimeout(r, 5000).unref())]);
  return started;
}
