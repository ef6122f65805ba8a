import { ConfigError } from '@omc/service-kit';
import { generateTokenKeys } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startAuth, type AuthHarness } from './support.js';

describe('auth service health', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('is live and reports each dependency as ready', async () => {
    expect((await h.app.inject('/healthz')).statusCode).toBe(200);
    const ready = await h.app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', redis: 'ok', nats: 'ok' } });
  });

  it("reports the mail consumer's lag and dead letters on /metrics, as every durable consumer does", async () => {
    const text = (await h.app.inject('/metrics')).body;
    expect(text).toMatch(
      /^nats_consumer_pending_messages\{stream="AUTH_EVENTS",consumer="auth-mail"[^}]*\} \d+$/m,
    );
    expect(text).toMatch(
      /^nats_consumer_dead_letters_total\{stream="AUTH_EVENTS",consumer="auth-mail"[^}]*\} 0$/m,
    );
  });

  it('echoes the request id it was given', async () => {
    const response = await h.app.inject({
      url: '/api/user/profile',
      headers: { 'x-request-id': 'req-auth-1' },
    });
    expect(response.headers['x-request-id']).toBe('req-auth-1');
    expect(response.json().requestId).toBe('req-auth-1');
  });
});

describe('auth configuration', () => {
  const keys = generateTokenKeys();
  const base = {
    DATABASE_URL: 'postgres://u@127.0.0.1/db',
    REDIS_URL: 'redis://127.0.0.1:6379',
    NATS_URL: 'nats://127.0.0.1:4222',
    JWT_PUBLIC_KEY: keys.publicKey,
    JWT_PRIVATE_KEY: keys.privateKey,
    SERVICE_PRIVATE_KEY: keys.privateKey,
    PAYMENTS_SERVICE_PUBLIC_KEY: keys.publicKey,
  };
  const problems = (env: Record<string, string>) => {
    try {
      loadConfig({ ...base, ...env });
      return [];
    } catch (error) {
      return (error as ConfigError).problems;
    }
  };

  it('has defaults for everything but the connections and keys', () => {
    const config = loadConfig(base);
    expect(config).toMatchObject({
      PORT: 3001,
      UPSTREAM_TIMEOUT_MS: 800,
      cookieSecure: false,
      bootstrapAdmin: null,
    });
    expect(loadConfig({ ...base, NODE_ENV: 'production' }).cookieSecure).toBe(true);
    expect(loadConfig({ ...base, NODE_ENV: 'production', COOKIE_SECURE: 'false' }).cookieSecure).toBe(false);
  });

  it('names a missing private key, a partial bootstrap admin and a bad admin email', () => {
    expect(problems({ JWT_PRIVATE_KEY: '' })).toEqual([expect.stringContaining('JWT_PRIVATE_KEY')]);
    expect(problems({ BOOTSTRAP_ADMIN_USERNAME: 'boss' })).toEqual([
      expect.stringMatching(/BOOTSTRAP_ADMIN_USERNAME.*set together/),
    ]);
    expect(
      problems({
        BOOTSTRAP_ADMIN_USERNAME: 'boss',
        BOOTSTRAP_ADMIN_EMAIL: 'nope',
        BOOTSTRAP_ADMIN_PASSWORD: 'long-enough',
      }),
    ).toEqual([expect.stringContaining('BOOTSTRAP_ADMIN_EMAIL')]);
  });
});
