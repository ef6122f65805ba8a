import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startHarness, type Harness } from './harness.js';

const base = {
  DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db',
  REDIS_URL: 'redis://127.0.0.1:6379',
  NATS_URL: 'nats://127.0.0.1:4222',
  JWT_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----',
  SERVICE_PRIVATE_KEY: '-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA\n-----END PRIVATE KEY-----',
  AUTH_SERVICE_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----',
  GAME_SERVICE_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA\n-----END PUBLIC KEY-----',
};

describe('configuration', () => {
  it('uses the emulators when no provider credentials are set', () => {
    const config = loadConfig(base);
    expect(config).toMatchObject({
      PORT: 3003,
      POT_SHARE_PERCENT: 50,
      BRAINTREE_ENVIRONMENT: 'emulator',
      PAYPAL_API_URL: 'http://127.0.0.1:3100',
    });
  });

  it('points production at the real providers', () => {
    const config = loadConfig({
      ...base,
      BRAINTREE_ENVIRONMENT: 'production',
      BRAINTREE_MERCHANT_ID: 'm',
      BRAINTREE_PUBLIC_KEY: 'pub',
      BRAINTREE_PRIVATE_KEY: 'priv',
      PAYPAL_CLIENT_ID: 'id',
      PAYPAL_CLIENT_SECRET: 'secret',
    });
    expect(config.PAYPAL_API_URL).toBe('https://api-m.paypal.com');
  });

  it('stops on a bad value, naming the variable', () => {
    expect(() => loadConfig({ ...base, POT_SHARE_PERCENT: '150' })).toThrow(/POT_SHARE_PERCENT/);
    expect(() => loadConfig({ ...base, BRAINTREE_ENVIRONMENT: 'live' })).toThrow(/BRAINTREE_ENVIRONMENT/);
    expect(() => loadConfig({ ...base, BRAINTREE_ENVIRONMENT: 'production' })).toThrow(
      /BRAINTREE_MERCHANT_ID[\s\S]*PAYPAL_CLIENT_SECRET/,
    );
    expect(() => loadConfig({ ...base, BRAINTREE_PUBLIC_KEY: 'pub' })).toThrow(/BRAINTREE_ENVIRONMENT/);
    expect(() => loadConfig({ ...base, PAYPAL_API_URL: 'not a url' })).toThrow(/PAYPAL_API_URL/);
  });
});

describe('payments service health', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());
  afterEach(async () => h.assertLedgerBalances());

  it('is live and reports each dependency as ready', async () => {
    expect((await h.app.inject('/healthz')).statusCode).toBe(200);
    const ready = await h.app.inject('/readyz');
    expect(ready.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', nats: 'ok' } });
  });

  it('exposes the payments metrics', async () => {
    await h.app.inject({
      method: 'POST',
      url: '/api/payments/checkout',
      headers: { authorization: `Bearer ${await h.token({ sub: crypto.randomUUID() })}` },
      payload: { paymentMethodNonce: 'fake-valid-nonce', amount: '0.99' },
    });
    const text = (await h.app.inject('/metrics')).body;
    expect(text).toMatch(/payments_checkouts_total\{outcome="succeeded"[^}]*\} 1/);
    expect(text).toMatch(/payments_outbox_backlog/);
    expect(text).toMatch(/payments_payouts_total/);
    expect(text).toMatch(/payments_events_consumed_total/);
  });

  it('answers a JSON 404 for an unknown route and 400 naming the field for bad input', async () => {
    expect((await h.app.inject('/api/payments/nope')).statusCode).toBe(404);
    const bad = await h.app.inject({
      method: 'POST',
      url: '/api/payments/checkout',
      headers: { authorization: `Bearer ${await h.token({ sub: crypto.randomUUID() })}` },
      payload: { amount: '0.99' },
    });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      field: 'paymentMethodNonce',
      error: expect.stringContaining('paymentMethodNonce'),
    });
  });
});
