import { createServer, migrateToLatest, observeConsumerLag, pingDb, pingNats, pingRedis, registerHealth, registerMetrics, registerTokens, startOutboxRelay, type Consumer, type OutboxRelay } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import { CheckoutService } from './checkout/checkout.service.js';
import { checkoutRoutes } from './checkout/checkout.routes.js';
import { migrations } from './db/migrations/index.js';
import type { Deps } from './deps.js';
import { startConsumers } from './events/consumers.js';
import { observeMoney, paymentsMetrics } from './metrics.js';
import { payoutRoutes } from './payouts/payouts.routes.js';
import { PayoutsService } from './payouts/payouts.service.js';
import { profileRoutes } from './profile/profile.routes.js';
import { AccountCheck } from './users/account-check.js';
import { UsersService } from './users/users.service.js';
import { webhookRoutes } from './webhooks/webhooks.routes.js';

export interface PaymentsApp extends FastifyInstance {
  payments: { checkout: CheckoutService; payouts: PayoutsService; outbox: OutboxRelay };
}

export async function buildApp(deps: Deps, options: { logger?: boolean } = {}): Promise<PaymentsApp> {
  const app = createServer({ name: 'payments', logLevel: deps.config.LOG_LEVEL, ...(options.logger === false ? { logger: false } : {}) });
  await migrateToLatest(deps.db, migrations);
  await registerTokens(app, { publicKey: deps.config.JWT_PUBLIC_KEY });
  registerHealth(app, {
    postgres: () => pingDb(deps.db),
    redis: () => pingRedis(deps.redis),
    nats: () => pingNats(deps.nats),
  });
  registerMetrics(app, deps.metrics);

  const outbox = startOutboxRelay(deps.db, deps.nats, deps.log);
  const metrics = paymentsMetrics(deps.metrics, () => outbox.backlog());
  const users = new UsersService(deps.db);
  const accounts = new AccountCheck({ authUrl: deps.config.AUTH_URL, timeoutMs: deps.config.AUTH_TIMEOUT_MS });
  const checkout = new CheckoutService(deps, metrics, () => outbox.nudge());
  const payouts = new PayoutsService(deps, users, metrics, () => outbox.nudge());
  const consumers: Consumer[] = await startConsumers(deps, metrics);
  observeConsumerLag(deps.metrics, deps.nats);
  observeMoney(deps.metrics, deps.db, deps.log);

  // Purchases and payouts a crash left unfinished are settled with the providers in the background.
  let reconciling = false;
  const timer =
    deps.config.RECONCILE_INTERVAL_MS > 0
      ? setInterval(() => {
          if (reconciling) return;
          reconciling = true;
          Promise.all([checkout.reconcilePending(), payouts.reconcilePending()])
            .catch((error) => deps.log.warn({ err: error }, 'reconciliation pass failed'))
            .finally(() => (reconciling = false));
        }, deps.config.RECONCILE_INTERVAL_MS)
      : undefined;
  timer?.unref();

  app.addHook('onClose', async () => {
    if (timer) clearInterval(timer);
    await Promise.all(consumers.map((c) => c.stop()));
    await outbox.stop();
  });

  await app.register(async (scope) => checkoutRoutes(scope, deps, checkout, accounts));
  await app.register(async (scope) => payoutRoutes(scope, deps, payouts, accounts));
  await app.register(async (scope) => profileRoutes(scope, deps, users, accounts));
  await app.register(async (scope) => webhookRoutes(scope, deps));

  return Object.assign(app, { payments: { checkout, payouts, outbox } }) as PaymentsApp;
}
