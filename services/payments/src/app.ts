import {
  createServiceApp,
  migrateToLatest,
  observeConsumerLag,
  startPollLoop,
  startRetention,
  startOutboxRelay,
  Notifier,
  outboxBacklog,
  startedHandle,
  type Started,
} from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { PaymentsContext } from './context.js';
import { ClawbacksService } from './clawbacks/clawbacks.service.js';
import { checkoutRoutes } from './checkout/checkout.routes.js';
import { CheckoutService } from './checkout/checkout.service.js';
import { migrations } from './db/migrations/index.js';
import type { Deps } from './deps.js';
import { startConsumers } from './events/consumers.js';
import { observeMoney, paymentsMetrics } from './metrics.js';
import {
  internalHousePayoutRoutes,
  internalPayoutEmailRoutes,
  payoutEmailConfirmRoutes,
  payoutRoutes,
} from './payouts/payouts.routes.js';
import { purgePayoutEmailChanges } from './payouts/payout-email.repo.js';
import { PAYOUT_EMAIL_RETENTION_MS, PayoutEmailService } from './payouts/payout-email.service.js';
import { AuthPayoutMail } from './users/auth-payout-mail.js';
import { PayoutsService } from './payouts/payouts.service.js';
import { PayoutItemsService } from './payouts/payout-items.service.js';
import { profileRoutes } from './profile/profile.routes.js';
import { GameTakeBack } from './refunds/game-take-back.js';
import { refundRoutes } from './refunds/refunds.routes.js';
import { internalRefundRoutes } from './refunds/internal-refunds.routes.js';
import { RefundsService } from './refunds/refunds.service.js';
import { ProfileService } from './profile/profile.service.js';
import { AccountCheck } from './users/account-check.js';
import { GameRecord } from './wins/game-record.js';
import { underLease } from './jobs/job-lease.repo.js';
import { reconcileWins } from './wins/wins.service.js';
import { internalPurchasesRoutes } from './checkout/internal-purchases.routes.js';
import { balancesRoutes } from './users/balances.routes.js';
import { UsersService } from './users/users.service.js';
import { webhookRoutes } from './webhooks/webhooks.routes.js';
import { WebhooksService } from './webhooks/webhooks.service.js';

export interface PaymentsApp extends FastifyInstance {
  payments: PaymentsContext & {
    /** Told after a commit that wrote events: the outbox relay start() runs publishes them now. */
    outboxWritten: Notifier;
    /** One reconciliation pass with the game's record of wins; the wins it credited (tests, the timer). */
    reconcileWins(): Promise<number>;
    /**
     * One pass driving unfinished checkouts, payouts, refunds and clawbacks to their end, reading the
     * settlement of winners' unsettled sales and the PayPal items of paid payouts not final yet (tests, the
     * timer).
     */
    finishMoney(): Promise<void>;
  };
}

/** The loops start() runs, with what needs them running. */
export interface PaymentsStarted extends Started {
  /** Publishes every queued outbox event now (tests). */
  drainOutbox(timeoutMs?: number): Promise<void>;
}

export async function buildApp(deps: Deps, options: { logger?: false } = {}): Promise<PaymentsApp> {
  const app = await createServiceApp(deps, {
    name: 'payments',
    logger: options.logger,
    tokens: { publicKey: deps.config.JWT_PUBLIC_KEY },
    // Events wait in the outbox while NATS is away; only Postgres is needed to serve.
    readyWithout: ['nats'],
    internalCallers: deps.credentials,
  });

  const outboxWritten = new Notifier();
  const nudge = () => outboxWritten.notify();
  const metrics = paymentsMetrics(deps.metrics, () => outboxBacklog(deps.db));
  const users = new UsersService(deps.db);
  const accounts = new AccountCheck(deps.internal);
  const payoutEmail = new PayoutEmailService(
    deps,
    new AuthPayoutMail(deps.internal, deps.config.AUTH_PASSWORD_CHECK_TIMEOUT_MS),
  );
  const game = new GameRecord(deps.internal);
  const takeBack = new GameTakeBack(deps.internal);
  const refunds = new RefundsService(deps, takeBack, metrics);
  const clawbacks = new ClawbacksService(deps, takeBack, refunds);
  const ctx: PaymentsContext = {
    deps,
    metrics,
    users,
    accounts,
    game,
    checkout: new CheckoutService(deps, metrics, nudge),
    payoutEmail,
    payouts: new PayoutsService(deps, users, metrics, nudge, payoutEmail, clawbacks),
    profile: new ProfileService(deps, users, accounts, clawbacks),
    webhooks: new WebhooksService(deps, clawbacks),
    refunds,
    clawbacks,
  };
  const payoutItems = new PayoutItemsService(deps, metrics);
  app.decorate('payments', {
    ...ctx,
    outboxWritten,
    reconcileWins: async () =>
      (await underLease(deps.db, 'wins', async () => {
        const lookback = deps.config.EVENT_RECONCILE_LOOKBACK_HOURS * 3_600_000;
        const repaired = await reconcileWins(deps.db, game, new Date(Date.now() - lookback), deps.log);
        metrics.reconciled.inc({ kind: 'win' }, repaired);
        return repaired;
      })) ?? 0,
    finishMoney: async () => {
      await underLease(deps.db, 'money', async () => {
        await Promise.all([ctx.checkout.reconcilePending(), ctx.payouts.reconcilePending()]);
        await ctx.refunds.resumeUnfinished();
        await ctx.clawbacks.pass();
        await payoutItems.reconcileItems();
      });
    },
  });
  for (const routes of [
    checkoutRoutes,
    payoutRoutes,
    payoutEmailConfirmRoutes,
    profileRoutes,
    webhookRoutes,
    internalPurchasesRoutes,
    internalPayoutEmailRoutes,
    internalHousePayoutRoutes,
    internalRefundRoutes,
    refundRoutes,
    balancesRoutes,
  ])
    await app.register(routes, ctx);
  return app as PaymentsApp;
}

/**
 * Migrations, the outbox relay, the consumers and the reconciliation timers; its handle's stop(), after
 * the app is closed, stops them.
 */
export async function start(app: PaymentsApp): Promise<PaymentsStarted> {
  const { deps, metrics, game } = app.payments;
  await migrateToLatest(deps.db, migrations);
  const relay = startOutboxRelay(deps.db, deps.nats, deps.log);
  const stopNudging = app.payments.outboxWritten.listen(() => relay.nudge());
  const consumers = await startConsumers(deps, metrics, game);
  observeConsumerLag(deps.metrics, deps.nats);
  observeMoney(deps.metrics, deps.db, deps.log);

  // Money operations a crash or an outage left unfinished (checkouts, payouts, refunds) are driven to their
  // end, and wins whose event was lost or held are credited: each job at start and then on its timer,
  // under its lease (one payments instance at a time). docs/payments.md, "Unfinished money operations".
  const loops = [
    [deps.config.RECONCILE_INTERVAL_MS, () => app.payments.finishMoney(), 'finishing money operations'],
    [deps.config.EVENT_RECONCILE_INTERVAL_MS, () => app.payments.reconcileWins(), "the game's wins"],
  ] as const;
  const running = loops
    .filter(([intervalMs]) => intervalMs > 0)
    .map(([intervalMs, pass, what]) =>
      startPollLoop(
        async () => {
          await pass();
          return false;
        },
        { intervalMs, log: deps.log, failureMessage: `a background pass (${what}) failed; next pass later` },
      ),
    );

  // Old outbox rows and processed-event marks are deleted (retention), and payout email requests
  // confirmed, cancelled or expired a week ago.
  const retention = startRetention({
    db: deps.db,
    log: deps.log,
    clock: deps.clock,
    config: deps.config,
    also: () => purgePayoutEmailChanges(deps.db, new Date(deps.clock()), PAYOUT_EMAIL_RETENTION_MS),
  });

  return startedHandle({ drainOutbox: (timeoutMs?: number) => relay.drain(timeoutMs) }, async () => {
    await retention.stop();
    await Promise.all(running.map((loop) => loop.stop()));
    await Promise.all(consumers.map((c) => c.stop()));
    stopNudging();
    await relay.stop();
  });
}

export type { PaymentsContext } from './context.js';
