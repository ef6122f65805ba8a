import {
  baseEnvSchema,
  ConfigError,
  env,
  parseConfig,
  retentionEnvSchema,
  serviceKeysEnvSchema,
} from '@omc/service-kit';
import { z } from 'zod';

const optionalText = () =>
  z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === '' ? undefined : v.trim()));

// Credentials the emulator accepts; they sign nothing real.
export const EMULATOR_CREDENTIALS = {
  merchantId: 'emulator-merchant',
  publicKey: 'emulator-public-key',
  privateKey: 'emulator-private-key',
  paypalClientId: 'emulator-client',
  paypalClientSecret: 'emulator-secret',
} as const;

// Payments keeps nothing in Redis, so it takes no REDIS_URL.
export const configSchema = baseEnvSchema
  .omit({ REDIS_URL: true })
  .extend({
    ...retentionEnvSchema.shape,
    // Payments' internal routes are called by auth and the game.
    ...serviceKeysEnvSchema.pick({
      SERVICE_PRIVATE_KEY: true,
      AUTH_SERVICE_PUBLIC_KEY: true,
      GAME_SERVICE_PUBLIC_KEY: true,
    }).shape,
    /** Payments' HTTP port. */
    PORT: env.port(3003),
    /** Auth, asked on every money path who the caller is now (GET /internal/account). */
    AUTH_URL: env.url(['http', 'https']).default('http://127.0.0.1:3001'),
    /** How long payments waits for auth before the money path answers 503. */
    AUTH_TIMEOUT_MS: env.int(2000, 100, 60_000),
    /**
     * How long payments waits for auth to check a password and mail a payout email's link (a password
     * check costs what a login does, slower than the account check).
     */
    AUTH_PASSWORD_CHECK_TIMEOUT_MS: env.int(10_000, 100, 60_000),
    /** How long the link confirming a new payout email (mailed to the account's email) stays valid. */
    PAYOUT_EMAIL_CONFIRM_TTL_HOURS: env.int(24, 1, 168),
    /** The game, asked for its record of a won round before it is credited (GET /internal/wins). */
    GAME_URL: env.url(['http', 'https']).default('http://127.0.0.1:3002'),
    /** How long payments waits for the game's record of a won round, or its take-back of a refund. */
    GAME_TIMEOUT_MS: env.int(2000, 100, 60_000),
    /**
     * The game's internal listener (its INTERNAL_PORT), where a refunded purchase is taken back
     * (POST /internal/purchases/:id/take-back: with the refunding admin's token, or none when payments
     * finishes the refund by itself).
     */
    GAME_INTERNAL_URL: env.url(['http', 'https']).default('http://127.0.0.1:3012'),
    /**
     * How often the game's record of wins is compared with the wins credited (a pass at start, then
     * this), so a win whose event was lost or held is credited within this (0: never; tests drive it).
     */
    EVENT_RECONCILE_INTERVAL_MS: env.int(10_000, 0, 3_600_000),
    /**
     * How long a round won event delivered to a payments instance waits for its ack before it goes to
     * another (or the restarted one): short, so a win held by a crashed instance is credited soon.
     */
    ROUND_WON_ACK_WAIT_MS: env.int(5000, 1000, 600_000),
    /** How far back each reconciliation pass looks. */
    EVENT_RECONCILE_LOOKBACK_HOURS: env.int(168, 1, 24 * 365),
    /** Share of each purchase that goes to the round's pot; the rest goes to the house. */
    POT_SHARE_PERCENT: env.int(50, 0, 100),
    /** emulator, sandbox or production; unset: the emulator when no credentials are set. */
    BRAINTREE_ENVIRONMENT: z.enum(['emulator', 'sandbox', 'production']).optional(),
    /** The local Braintree emulator (development and tests; no money moves). */
    BRAINTREE_EMULATOR_URL: env.url(['http']).default('http://127.0.0.1:3100'),
    /** Braintree credentials (sandbox or production). */
    BRAINTREE_MERCHANT_ID: optionalText(),
    /** Braintree credentials (sandbox or production). */
    BRAINTREE_PUBLIC_KEY: optionalText(),
    /** Braintree credentials (sandbox or production). */
    BRAINTREE_PRIVATE_KEY: optionalText(),
    /** How long one gateway call may take before it counts as a timeout (then reconciled by order id). */
    BRAINTREE_TIMEOUT_MS: env.int(20_000, 100, 120_000),
    /** PayPal's REST API; unset: the local emulator. */
    PAYPAL_API_URL: env.url(['http', 'https']).optional(),
    /** PayPal REST credentials for payouts. */
    PAYPAL_CLIENT_ID: optionalText(),
    /** PayPal REST credentials for payouts. */
    PAYPAL_CLIENT_SECRET: optionalText(),
    /** How long one PayPal call may take before it counts as a timeout. */
    PAYPAL_TIMEOUT_MS: env.int(15_000, 100, 120_000),
    /** Attempts per payout call (5xx and timeouts are retried with the same sender_batch_id). */
    PAYPAL_MAX_ATTEMPTS: env.int(5, 1, 20),
    /** The first wait between payout attempts, doubling after each. */
    PAYPAL_RETRY_BASE_MS: env.int(200, 0, 60_000),
    /**
     * How often unfinished money operations (purchases, payouts and refunds a crash or an outage left
     * behind) are driven to their end (a pass at start, then this; 0: never, tests drive it).
     */
    RECONCILE_INTERVAL_MS: env.int(30_000, 0, 3_600_000),
  })
  .superRefine((c, ctx) => {
    const hasBraintree = Boolean(
      c.BRAINTREE_MERCHANT_ID || c.BRAINTREE_PUBLIC_KEY || c.BRAINTREE_PRIVATE_KEY,
    );
    const environment = c.BRAINTREE_ENVIRONMENT ?? (hasBraintree ? undefined : 'emulator');
    if (!environment) {
      ctx.addIssue({
        code: 'custom',
        path: ['BRAINTREE_ENVIRONMENT'],
        message: 'must be sandbox or production when Braintree credentials are set',
      });
      return;
    }
    if (environment !== 'emulator') {
      for (const name of [
        'BRAINTREE_MERCHANT_ID',
        'BRAINTREE_PUBLIC_KEY',
        'BRAINTREE_PRIVATE_KEY',
        'PAYPAL_CLIENT_ID',
        'PAYPAL_CLIENT_SECRET',
      ] as const) {
        if (!c[name])
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message: `is required when BRAINTREE_ENVIRONMENT is ${environment}`,
          });
      }
      if (environment === 'production' && c.PAYPAL_API_URL && !c.PAYPAL_API_URL.startsWith('https://')) {
        ctx.addIssue({
          code: 'custom',
          path: ['PAYPAL_API_URL'],
          message: 'must be an https URL in production',
        });
      }
    }
  })
  .transform((c) => {
    const environment = c.BRAINTREE_ENVIRONMENT ?? 'emulator';
    const emulator = environment === 'emulator';
    const paypalDefault = emulator
      ? c.BRAINTREE_EMULATOR_URL
      : environment === 'sandbox'
        ? 'https://api-m.sandbox.paypal.com'
        : 'https://api-m.paypal.com';
    return {
      ...c,
      BRAINTREE_ENVIRONMENT: environment,
      BRAINTREE_MERCHANT_ID: c.BRAINTREE_MERCHANT_ID ?? EMULATOR_CREDENTIALS.merchantId,
      BRAINTREE_PUBLIC_KEY: c.BRAINTREE_PUBLIC_KEY ?? EMULATOR_CREDENTIALS.publicKey,
      BRAINTREE_PRIVATE_KEY: c.BRAINTREE_PRIVATE_KEY ?? EMULATOR_CREDENTIALS.privateKey,
      PAYPAL_API_URL: withoutTrailingSlashes(c.PAYPAL_API_URL ?? paypalDefault),
      PAYPAL_CLIENT_ID: c.PAYPAL_CLIENT_ID ?? EMULATOR_CREDENTIALS.paypalClientId,
      PAYPAL_CLIENT_SECRET: c.PAYPAL_CLIENT_SECRET ?? EMULATOR_CREDENTIALS.paypalClientSecret,
    };
  });

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(source: NodeJS.ProcessEnv = process.env): Readonly<z.infer<typeof configSchema>> {
  const result = configSchema.safeParse(source);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => `${issue.path.join('.') || '(environment)'}: ${issue.message}`),
    );
  }
  return Object.freeze(result.data);
}

/** The ledger check needs only the database. */
export function loadLedgerCheckConfig(source: NodeJS.ProcessEnv = process.env) {
  return parseConfig(z.object({ DATABASE_URL: env.url(['postgres', 'postgresql']) }), source);
}

function withoutTrailingSlashes(url: string): string {
  let end = url.length;
  while (end > 0 && url[end - 1] === '/') end -= 1;
  return url.slice(0, end);
}
