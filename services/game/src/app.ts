import { STREAMS } from '@omc/contracts';
import {
  createServer,
  ensureStream,
  migrateToLatest,
  observeConsumerLag,
  pingDb,
  pingNats,
  pingRedis,
  registerHealth,
  registerMetrics,
  registerTokens,
  startOutboxRelay,
} from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import { clickRoutes } from './clicks/clicks.routes.js';
import { migrations } from './db/migrations/index.js';
import type { Deps } from './deps.js';
import { GameEngine, type HotState } from './engine/game-engine.js';
import { startGameConsumers } from './events/consumers.js';
import { startJournalFlusher } from './journal/journal-flusher.js';
import { gameMetrics } from './metrics.js';
import { startStatePublisher } from './state/state-publisher.js';
import { stateRoutes } from './state/state.routes.js';
import { roleRoutes } from './users/role.routes.js';
import { winnersRoutes } from './winners/winners.routes.js';

export interface GameApp extends FastifyInstance {
  game: {
    engine: GameEngine;
    /** Writes everything Redis holds for Postgres now (tests, shutdown). */
    flushJournal(timeoutMs?: number): Promise<void>;
    /** Publishes every queued outbox event now (tests). */
    drainOutbox(timeoutMs?: number): Promise<void>;
  };
}

export async function buildApp(deps: Deps, options: { logger?: boolean } = {}): Promise<GameApp> {
  const { config, db, redis, nats, log } = deps;
  const app = createServer({
    name: 'game',
    // service-kit's option type names only the other forms Fastify accepts.
    trustProxy: ((_address: string, hop: number) => hop < config.TRUST_PROXY_HOPS) as unknown as boolean,
    logLevel: config.LOG_LEVEL,
    ...(options.logger === false ? { logger: false } : {}),
  });
  await migrateToLatest(db, migrations);
  // The game publishes round wins and reads auth's and payments' events: make sure each stream exists,
  // whatever order the services start in (idempotent, same configuration as their owners').
  for (const stream of [STREAMS.game, STREAMS.auth, STREAMS.payments]) await ensureStream(nats.jsm, stream);
  await registerTokens(app, { publicKey: config.JWT_PUBLIC_KEY });
  registerHealth(app, {
    postgres: () => pingDb(db),
    redis: () => pingRedis(redis),
    nats: () => pingNats(nats),
  });
  registerMetrics(app, deps.metrics);

  const metrics = gameMetrics(deps.metrics);
  const outbox = startOutboxRelay(db, nats, log, { intervalMs: 100 });
  metrics.observeOutboxBacklog(() => outbox.backlog());
  observeConsumerLag(deps.metrics, nats);
  let stateChanged: (state?: HotState) => void = () => undefined;
  const engine = new GameEngine(db, redis, config, log, deps.clock, {
    onBatch: (size) => metrics.batchSize.observe(size),
    onOutcome: (outcome, count) => metrics.clicks.inc({ outcome }, count),
    onWin: () => metrics.roundsWon.inc(),
    onWinPersisted: () => outbox.nudge(),
    onStateChanged: (state) => stateChanged(state),
  });
  const flusher = startJournalFlusher(db, redis, log, {
    intervalMs: config.JOURNAL_FLUSH_MS,
    onWinsWritten: () => outbox.nudge(),
  });
  const publisher = startStatePublisher(engine, nats, log, deps.clock, {
    intervalMs: config.STATE_PUBLISH_MS,
    onPublished: () => metrics.statePublished.inc(),
  });
  stateChanged = (state) => publisher.changed(state);
  metrics.observeRound(() => engine.readState(), config.ROUND_TARGET);
  const consumers = startGameConsumers({
    db,
    nats,
    engine,
    config,
    log,
    onResult: (subject, outcome) => metrics.eventsConsumed.inc({ subject, outcome }),
  });

  await app.register(async (scope) => {
    await clickRoutes(scope, engine, {
      perUser: config.CLICK_RATE_PER_USER,
      perAddress: config.CLICK_RATE_PER_IP,
      queue: { max: config.CLICK_QUEUE_MAX, targetMs: config.CLICK_QUEUE_TARGET_MS },
    });
    await stateRoutes(scope, engine, config);
    await winnersRoutes(scope, db);
    await roleRoutes(scope, db, engine);
  });

  app.addHook('onClose', async () => {
    await Promise.all(consumers.map((c) => c.stop()));
    await publisher.stop();
    await engine.close();
    await flusher
      .drain(2000)
      .catch((error) => log.warn({ err: error }, 'journal left in Redis for another instance'));
    await flusher.stop();
    await outbox.stop();
  });

  return Object.assign(app, {
    game: {
      engine,
      flushJournal: (timeoutMs?: number) => flusher.drain(timeoutMs),
      drainOutbox: (timeoutMs?: number) => outbox.drain(timeoutMs),
    },
  }) as GameApp;
}
