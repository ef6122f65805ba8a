import { STREAMS } from '@omc/contracts';
import {
  createServiceApp,
  ensureStream,
  migrateToLatest,
  observeConsumerLag,
  startOutboxRelay,
  type OutboxRelay,
} from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import { clickRoutes } from './clicks/clicks.routes.js';
import { migrations } from './db/migrations/index.js';
import type { Deps } from './deps.js';
import { GameEngine } from './engine/game-engine.js';
import { startGameConsumers } from './events/consumers.js';
import { startJournalFlusher, type JournalFlusher } from './journal/journal-flusher.js';
import { gameMetrics, type GameMetrics } from './metrics.js';
import { startStatePublisher, type StatePublisher } from './state/state-publisher.js';
import { stateRoutes } from './state/state.routes.js';
import { buildInternalApp } from './internal.js';
import { winnersRoutes } from './winners/winners.routes.js';

/** What the routes of this app share: the dependencies, the engine and the service's metrics. */
export interface GameContext {
  deps: Deps;
  engine: GameEngine;
  metrics: GameMetrics;
}

export interface GameApp extends FastifyInstance {
  game: GameContext & {
    /** The internal listener (INTERNAL_PORT): the routes only auth calls. start() makes it listen. */
    internal: FastifyInstance;
    /** Writes everything Redis holds for Postgres now (tests, shutdown). */
    flushJournal(timeoutMs?: number): Promise<void>;
    /** Publishes every queued outbox event now (tests). */
    drainOutbox(timeoutMs?: number): Promise<void>;
  };
}

/** The loops start() runs; the engine's hooks reach them once they run. */
interface Background {
  outbox?: OutboxRelay;
  flusher?: JournalFlusher;
  publisher?: StatePublisher;
  /** Stops the loops and the engine, in order; an app never started only closes its engine. */
  stop?: () => Promise<void>;
}
const backgrounds = new WeakMap<FastifyInstance, Background>();

export async function buildApp(deps: Deps, options: { logger?: false } = {}): Promise<GameApp> {
  const { config } = deps;
  const app = await createServiceApp(deps, {
    name: 'game',
    trustProxyHops: config.TRUST_PROXY_HOPS,
    logger: options.logger,
    tokens: { publicKey: config.JWT_PUBLIC_KEY },
  });

  const metrics = gameMetrics(deps.metrics);
  const background: Background = {};
  backgrounds.set(app, background);
  const engine = new GameEngine(deps.db, deps.redis, config, deps.log, deps.clock, {
    onBatch: (size) => metrics.batchSize.observe(size),
    onOutcome: (outcome, count) => metrics.clicks.inc({ outcome }, count),
    onWin: () => metrics.roundsWon.inc(),
    onWinPersisted: () => background.outbox?.nudge(),
    onStateChanged: (state) => background.publisher?.changed(state),
  });
  const ctx: GameContext = { deps, engine, metrics };
  const internal = await buildInternalApp(ctx, { logger: options.logger });
  const notStarted = async () => {
    throw new Error('the game app is not started');
  };
  app.decorate('game', {
    deps,
    engine,
    metrics,
    internal,
    flushJournal: (timeoutMs?: number) => background.flusher?.drain(timeoutMs) ?? notStarted(),
    drainOutbox: (timeoutMs?: number) => background.outbox?.drain(timeoutMs) ?? notStarted(),
  });
  for (const routes of [clickRoutes, stateRoutes, winnersRoutes]) await app.register(routes, ctx);
  app.addHook('onClose', async () => {
    await internal.close();
    await (background.stop ?? (() => engine.close()))();
  });
  return app as GameApp;
}

/** Migrations, streams, the outbox relay, the journal flusher, the state publisher and the consumers. */
export async function start(app: GameApp): Promise<void> {
  const { deps, engine, metrics } = app.game;
  const { config, db, redis, nats, log } = deps;
  const background = backgrounds.get(app)!;
  await migrateToLatest(db, migrations);
  // The game publishes round wins and reads auth's and payments' events: make sure each stream exists,
  // whatever order the services start in (idempotent, same configuration as their owners').
  for (const stream of [STREAMS.game, STREAMS.auth, STREAMS.payments]) await ensureStream(nats.jsm, stream);
  const outbox = startOutboxRelay(db, nats, log, { intervalMs: 100 });
  metrics.observeOutboxBacklog(() => outbox.backlog());
  observeConsumerLag(deps.metrics, nats);
  const flusher = startJournalFlusher(db, redis, log, {
    intervalMs: config.JOURNAL_FLUSH_MS,
    onWinsWritten: () => outbox.nudge(),
  });
  const publisher = startStatePublisher(engine, nats, log, deps.clock, {
    intervalMs: config.STATE_PUBLISH_MS,
    onPublished: () => metrics.statePublished.inc(),
  });
  Object.assign(background, { outbox, flusher, publisher });
  await app.game.internal.listen({ port: config.INTERNAL_PORT, host: config.HOST });
  metrics.observeRound(() => engine.readState(), config.ROUND_TARGET);
  const consumers = startGameConsumers({
    db,
    nats,
    engine,
    config,
    log,
    onResult: (subject, outcome) => metrics.eventsConsumed.inc({ subject, outcome }),
  });
  background.stop = async () => {
    await Promise.all(consumers.map((c) => c.stop()));
    await publisher.stop();
    await engine.close();
    await flusher
      .drain(2000)
      .catch((error) => log.warn({ err: error }, 'journal left in Redis for another instance'));
    await flusher.stop();
    await outbox.stop();
  };
}
