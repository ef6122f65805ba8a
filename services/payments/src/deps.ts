import {
  baseDeps,
  closeInOrder,
  connectNats,
  createDb,
  internalClientFrom,
  serviceCredentials,
  type InternalClient,
  type BaseDeps,
  type Nats,
  type ServiceCredentials,
} from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import type { Database } from './db/schema.js';
import { createBraintreeGateway, type PaymentGateway } from './providers/braintree.js';
import { createPayPalClient, type PayoutsClient } from './providers/paypal.js';

// No Redis: payments keeps nothing there (money lives in Postgres; events go through NATS).
export interface Deps extends BaseDeps {
  config: Config;
  db: Kysely<Database>;
  nats: Nats;
  payments: PaymentGateway;
  payouts: PayoutsClient;
  /** Signs payments' internal calls and checks its internal callers (service-credential.ts). */
  credentials: ServiceCredentials;
  /** Payments' calls to auth's and the game's internal routes. */
  internal: InternalClient;
}

export async function createDeps(
  config: Config,
  overrides: Partial<Pick<Deps, 'payments' | 'payouts'>> = {},
): Promise<Deps> {
  const base = baseDeps({ name: 'payments', logLevel: config.LOG_LEVEL });
  const { log } = base;
  const db = createDb<Database>(config.DATABASE_URL, { name: 'payments', max: 20, log });
  const nats = await connectNats(config.NATS_URL, 'payments');
  if (config.BRAINTREE_ENVIRONMENT === 'emulator') {
    log.warn(
      { emulator: config.BRAINTREE_EMULATOR_URL, paypal: config.PAYPAL_API_URL },
      'payments use the local provider emulators: no real money moves',
    );
  }
  const credentials = serviceCredentials('payments', config);
  return {
    ...base,
    config,
    credentials,
    internal: internalClientFrom(credentials, config),
    db,
    nats,
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
    close: closeInOrder(
      () => nats.close(),
      () => db.destroy(),
    ),
  };
}
