import { connectNats, createDb, createMetrics, createRedis, traceLogFields, type Metrics, type Nats, type Redis } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/schema.js';
import { createBraintreeGateway, type PaymentGateway } from './providers/braintree.js';
import { createPayPalClient, type PayoutsClient } from './providers/paypal.js';

export interface Deps {
  config: Config;
  db: Kysely<Database>;
  redis: Redis;
  nats: Nats;
  metrics: Metrics;
  log: Logger;
  payments: PaymentGateway;
  payouts: PayoutsClient;
  clock: () => number;
  close(): Promise<void>;
}

export async function createDeps(config: Config, overrides: Partial<Pick<Deps, 'payments' | 'payouts'>> = {}): Promise<Deps> {
  const log = pino({ level: config.LOG_LEVEL, base: { service: 'payments' }, mixin: traceLogFields });
  const db = createDb<Database>(config.DATABASE_URL, { name: 'payments', max: 20 });
  const redis = createRedis(config.REDIS_URL);
  const nats = await connectNats(config.NATS_URL, 'payments');
  if (config.BRAINTREE_ENVIRONMENT === 'emulator') {
    log.warn({ emulator: config.BRAINTREE_EMULATOR_URL, paypal: config.PAYPAL_API_URL }, 'payments use the local provider emulators: no real money moves');
  }
  return {
    config,
    db,
    redis,
    nats,
    metrics: createMetrics('payments'),
    log,
    payments: overrides.payments ?? createBraintreeGateway(config),
    payouts:
      overrides.payouts ??
      createPayPalClient({
        baseUrl: config.PAYPAL_API_URL,
        clientId: config.PAYPAL_CLIENT_ID,
        clientSecret: config.PAYPAL_CLIENT_SECRET,
        timeoutMs: config.PAYPAL_TIMEOUT_MS,
        maxAttempts: config.PAYPAL_MAX_ATTEMPTS,
        retryBaseMs: config.PAYPAL_RETRY_BASE_MS,
        log,
      }),
    clock: () => Date.now(),
    async close() {
      await nats.close();
      redis.disconnect();
      await db.destroy();
    },
  };
}
