import { ACCOUNT_SUSPENDED, STREAMS, suspendedMessage } from '@omc/contracts';
import {
  AppError,
  createServiceApp,
  ensureStream,
  migrateToLatest,
  observeConsumerLag,
  startOutboxRelay,
  startPollLoop,
  startRetention,
  Notifier,
  outboxBacklog,
  startedHandle,
  type Started,
} from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import { buildGameServices, closeGameServices, type GameContext } from './context.js';
import { clickRoutes } from './clicks/clicks.routes.js';
import { migrations } from './db/migrations/index.js';
import type { Deps } from './deps.js';
import type { HotState } from './engine/game-engine.js';
import { startGameConsumers } from './events/consumers.js';
import { reconcilePurchases } from './events/purchase-reconciler.js';
import { journalBacklog, startJournalFlusher } from './journal/journal-flusher.js';
import { gameMetrics } from './metrics.js';
import { prunePurchaseMarks } from './purchases/purchase-marks.js';
import { startStatePublisher } from './state/state-publisher.js';
import { stateRoutes } from './state/state.routes.js';
import { internalWinsRoutes } from './winners/internal-wins.routes.js';
import { buildInternalApp } from './internal.js';
import { EndedSessions, refuseEndedSessions, watchEndedSessions } from './players/ended-sessions.js';
import { winnersRoutes } from './winners/winners.routes.js';

/** What the game's services tell the loops start() runs: made with the app, listened to while they run. */
export interface GameSignals {
  /** The round state changed: the state publisher sends it on. */
  stateChanged: Notifier<[state?: HotState]>;
  /** A win was written with its event (outbox): the relay publishes it now. */
  winPersisted: Notifier;
}

export interface GameApp extends FastifyInstance {
  game: GameContext & {
    /** The internal listener (INTERNAL_PORT): the routes only auth calls. start() makes it listen. */
    internal: FastifyInstance;
    signals: GameSignals;
    /** One reconciliation pass with payments' completed purchases; the purchases it applied. */
    reconcilePurchases(): Promise<number>;
  };
}

/** The loops start() runs, with what needs them running. */
export interface GameStarted extends Started {
  /** Writes everything Redis holds for Postgres now (tests, shutdown). */
  flushJournal(timeoutMs?: number): Promise<void>;
  /** Publishes every queued outbox event now (tests). */
  drainOutbox(timeoutMs?: number): Promise<void>;
}

export async function buildApp(deps: Deps, options: { logger?: false } = {}): Promise<GameApp> {
  const { config } = deps;
  const endedSessions = new EndedSessions(deps.clock, deps.config.ENDED_SESSIONS_BLIND_MS);
  const app = await createServiceApp(deps, {
    name: 'game',
    trustProxyHops: config.TRUST_PROXY_HOPS,
    logger: options.logger,
    tokens: { publicKey: config.JWT_PUBLIC_KEY },
    // Every game pod shares these stores, and each serves something without each: the rules, the winners
    // and the last state without Redis (clicks refused fast with 503), clicks without Postgres (the
    // journal waits in Redis) or NATS. Unready for a shared store's stall would empty the Service.
    readyWithout: ['postgres', 'redis', 'nats'],
    internalCallers: deps.credentials,
    // Until it has replayed the sessions ended within a token's lifetime, a pod cannot tell a thief's
    // token from its owner's: it takes no traffic (and refuses token routes with 503, below).
    readyWhen: {
      endedSessions: () => {
        if (!endedSessions.replayed) throw new Error('the ended sessions are not replayed yet');
      },
    },
  });

  const metrics = gameMetrics(deps.metrics, {
    outboxBacklog: () => outboxBacklog(deps.db),
    journalBacklog: () => journalBacklog(deps.redis),
    // Read at a scrape, once the services below are built.
    round: () => services.engine.readState(),
    roundTarget: config.ROUND_TARGET,
  });
  const signals: GameSignals = { stateChanged: new Notifier(), winPersisted: new Notifier() };
  const services = buildGameServices(deps, {
    onBatch: (size) => metrics.batchSize.observe(size),
    onBatchWait: (ms) => metrics.batchWait.observe(ms / 1000),
    onBatchRun: (ms) => metrics.batchRun.observe(ms / 1000),
    onOutcome: (outcome, count) => metrics.clicks.inc({ outcome }, count),
    onWin: () => metrics.roundsWon.inc(),
    onWinPersisted: () => signals.winPersisted.notify(),
    onWinAnswer: (ended) => metrics.winAnswers.inc({ ended }),
    onRebuilt: (cause) => metrics.stateRebuilds.inc({ cause }),
    onStateChanged: (state) => signals.stateChanged.notify(state),
  });
  const ctx: GameContext = { deps, ...services, metrics, endedSessions };
  const internal = await buildInternalApp(ctx, { logger: options.logger });
  app.decorate('game', {
    ...ctx,
    internal,
    signals,
    reconcilePurchases: async () => {
      const since = new Date(deps.clock() - config.EVENT_RECONCILE_LOOKBACK_HOURS * 3_600_000);
      const repaired = await reconcilePurchases(
        {
          db: deps.db,
          purchases: services.purchases,
          internal: deps.internal,
          log: deps.log,
        },
        since,
      );
      metrics.purchasesReconciled.inc(repaired);
      return repaired;
    },
  });
  // One hook for every route that took a token (after each route tree's onRequest authentication): a
  // token of an ended session is a 401, and every token waits (503) for the replay of ended sessions.
  // A session ended by a suspension is refused as the suspension, with the operator's reason.
  app.addHook(
    'preParsing',
    refuseEndedSessions(endedSessions, {
      explain: async (userId) => {
        const reason = await services.users.suspensionReason(userId);
        return reason === null
          ? undefined
          : new AppError(ACCOUNT_SUSPENDED, 403, suspendedMessage(reason || null));
      },
    }),
  );
  for (const routes of [clickRoutes, stateRoutes, winnersRoutes, internalWinsRoutes])
    await app.register(routes, ctx);
  // The services close with the loops that feed on them, in the stop() of start()'s handle.
  app.addHook('onClose', async () => internal.close());
  return app as GameApp;
}

/**
 * Migrations, streams, the outbox relay, the journal flusher, the state publisher and the consumers.
 * Its handle's stop(), after the app is closed, stops them, then the game's services, then drains the
 * journal.
 */
export async function start(app: GameApp): Promise<GameStarted> {
  const { deps, engine, metrics, signals } = app.game;
  const { config, db, redis, nats, log } = deps;
  await migrateToLatest(db, migrations);
  // The game publishes round wins and reads auth's and payments' events: make sure each stream exists,
  // whatever order the services start in (idempotent, same configuration as their owners'; where its
  // NATS user may not create another's stream, its consumers wait for the owner to).
  for (const stream of [STREAMS.game, STREAMS.auth, STREAMS.payments])
    await ensureStream(nats.jsm, stream, { replicas: config.NATS_STREAM_REPLICAS });
  const outbox = startOutboxRelay(db, nats, log, { intervalMs: 100 });
  const stopNudging = signals.winPersisted.listen(() => outbox.nudge());
  observeConsumerLag(deps.metrics, nats);
  const flusher = startJournalFlusher(db, redis, log, {
    intervalMs: config.JOURNAL_FLUSH_MS,
    onWinsWritten: () => outbox.nudge(),
    onStale: (stale) =>
      void engine
        .replaceStaleState(stale)
        .catch((error: unknown) => log.error({ err: error }, 'rebuilding a stale Redis state failed')),
    onFlushed: (entries) => metrics.journalFlushed.inc(entries),
  });
  const eviction = app.game.users.startEviction(log);
  // The fence check: a Redis that came back older than Postgres is rebuilt within FENCE_CHECK_MS.
  const fence = startPollLoop(async () => (await engine.verifyState(), false), {
    intervalMs: config.FENCE_CHECK_MS,
    log,
    failureMessage: 'comparing Redis with Postgres failed; will retry',
  });
  const publisher = startStatePublisher(engine, signals.stateChanged, nats, log, deps.clock, {
    intervalMs: config.STATE_PUBLISH_MS,
    onPublished: (waitedMs) => {
      metrics.statePublished.inc();
      if (waitedMs !== undefined) metrics.publishWait.observe(waitedMs / 1000);
    },
  });
  await app.game.internal.listen({ port: config.INTERNAL_PORT, host: config.HOST });
  // Every instance reads the sessions their owners ended (a shared durable consumer would tell only one).
  const endedSessions = watchEndedSessions({
    nats,
    sessions: app.game.endedSessions,
    clock: deps.clock,
    log,
  });
  // Start-up waits (briefly) for the replay; a pod whose NATS is away starts unready and stays so until
  // the replay is done.
  await Promise.race([endedSessions.caughtUp, new Promise((r) => setTimeout(r, 5000).unref())]);
  const consumers = startGameConsumers({
    nats,
    players: app.game.players,
    purchases: app.game.purchases,
    config,
    log,
    onResult: (subject, outcome) => metrics.eventsConsumed.inc({ subject, outcome }),
  });
  // Purchases whose event was lost are applied from payments' record.
  let firstPass = true;
  const reconciler =
    config.EVENT_RECONCILE_INTERVAL_MS > 0
      ? startPollLoop(
          async () => {
            // The first pass waits one interval: at start the events in flight arrive by themselves.
            if (firstPass) firstPass = false;
            else await app.game.reconcilePurchases();
            return false;
          },
          {
            intervalMs: config.EVENT_RECONCILE_INTERVAL_MS,
            log,
            failureMessage: "reconciliation with payments' purchases failed; next pass later",
          },
        )
      : undefined;
  // Old outbox rows, processed-event marks and Redis purchase marks are deleted (retention).
  const retention = startRetention({
    db,
    log,
    clock: deps.clock,
    config,
    also: () => prunePurchaseMarks(db, redis, deps.clock()),
  });
  return startedHandle<Omit<GameStarted, 'stop'>>(
    {
      flushJournal: (timeoutMs) => flusher.drain(timeoutMs),
      drainOutbox: (timeoutMs) => outbox.drain(timeoutMs),
    },
    async () => {
      await retention.stop();
      await eviction.stop();
      await reconciler?.stop();
      await Promise.all([...consumers, endedSessions].map((c) => c.stop()));
      await fence.stop();
      await publisher.stop();
      await closeGameServices(app.game);
      await flusher
        .drain(2000)
        .catch((error) => log.warn({ err: error }, 'journal left in Redis for another instance'));
      await flusher.stop();
      stopNudging();
      await outbox.stop();
    },
  );
}
