// Helpers for integration tests against the real servers started by the global setup.
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { dropDatabase, recreateDatabase } from '@omc/infra';
import { isRedisUser, type AccessTokenClaims, type Service } from '@omc/contracts';
import { ServiceCredentials } from '@omc/service-kit';
import { Redis } from 'ioredis';
import { createSigner } from 'fast-jwt';
import { connect } from 'nats';
import { inject } from 'vitest';
import type { TestInfra } from './global-setup.js';

export type { TestInfra } from './global-setup.js';
export { workspaceRoot } from './paths.js';

/** The servers of this test file's worker (each worker has a set of its own). */
export function testInfra(): TestInfra {
  const sets = inject('infraSets');
  const worker = Number(process.env.VITEST_POOL_ID ?? 1);
  return sets[(worker - 1) % sets.length]!;
}

/**
 * The environment a service under test needs to reach the test servers, signed-token key and all; a
 * test adds or overrides its own settings after it.
 */
export function serviceEnv(options: {
  databaseUrl?: string;
  publicKey: string;
  /** The service under test: it gets its own internal-call key and the others' public keys. */
  service: Service;
}): Record<string, string> {
  const infra = testInfra();
  return {
    ...(options.databaseUrl ? { DATABASE_URL: options.databaseUrl } : {}),
    // The service's own Redis user: its own keys and commands only.
    REDIS_URL: isRedisUser(options.service) ? infra.redisUrls[options.service] : infra.redisUrl,
    NATS_URL: infra.natsUrl,
    JWT_PUBLIC_KEY: options.publicKey,
    SERVICE_PRIVATE_KEY: testServiceKeys[options.service].privateKey,
    AUTH_SERVICE_PUBLIC_KEY: testServiceKeys.auth.publicKey,
    GAME_SERVICE_PUBLIC_KEY: testServiceKeys.game.publicKey,
    PAYMENTS_SERVICE_PUBLIC_KEY: testServiceKeys.payments.publicKey,
    LOG_LEVEL: 'silent',
  };
}

/** A fresh database cloned from the migrated template, for one test file. */
export async function freshDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const infra = testInfra();
  if (!infra.templateDatabase) throw new Error('this package has no migrated template database');
  const name = `t_${randomBytes(6).toString('hex')}`;
  const url = await recreateDatabase(infra.databaseUrl, name, infra.templateDatabase);
  return { url, drop: () => dropDatabase(infra.databaseUrl, name) };
}

/** Empties Redis (every database). */
export async function resetRedis(url = testInfra().redisUrl): Promise<void> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    await redis.flushall();
  } finally {
    redis.disconnect();
  }
}

/** Deletes every JetStream stream (and so its consumers). */
export async function resetNats(url = testInfra().natsUrl): Promise<void> {
  const nc = await connect({ servers: url });
  try {
    const jsm = await nc.jetstreamManager();
    for await (const stream of jsm.streams.list()) await jsm.streams.delete(stream.config.name);
  } finally {
    await nc.close();
  }
}

export interface KeyPair {
  publicKey: string;
  privateKey: string;
}

export function generateTokenKeys(): KeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** Each service's internal-call key pair in this test process (serviceEnv hands them out). */
export const testServiceKeys: Record<Service, KeyPair> = {
  auth: generateTokenKeys(),
  game: generateTokenKeys(),
  payments: generateTokenKeys(),
};

/** The headers of an internal call from `caller` to `callee`, signed with `privateKey` as the caller signs. */
export function signedCallHeaders(
  caller: Service,
  privateKey: string,
  callee: Service,
): Record<string, string> {
  return new ServiceCredentials(caller, { privateKey, callerKeys: {} }).headersFor(callee);
}

/** The headers of an internal call from `caller` to `callee` in this test process (testServiceKeys). */
export function internalCallHeaders(caller: Service, callee: Service): Record<string, string> {
  return signedCallHeaders(caller, testServiceKeys[caller].privateKey, callee);
}

/** An access token as services/auth would sign it. */
export async function signAccessToken(
  privateKeyPem: string,
  claims: Omit<AccessTokenClaims, 'exp' | 'iat'> & { exp?: number },
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const sign = createSigner({ key: privateKeyPem, algorithm: 'EdDSA', noTimestamp: true });
  return sign({
    sub: claims.sub,
    username: claims.username,
    role: claims.role,
    ...(claims.sid !== undefined ? { sid: claims.sid } : {}),
    ...(claims.sv !== undefined ? { sv: claims.sv } : {}),
    iat: now,
    exp: claims.exp ?? now + 900,
  });
}

/** Polls until `check` returns a truthy value, or fails with `what`. For effects that arrive by event. */
export async function eventually<T>(
  check: () => Promise<T> | T,
  what = 'condition',
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
}
export * from './mail-sink.js';
export * from './migrations.js';
export { routeSpellings, samplePath } from './route-spellings.js';
