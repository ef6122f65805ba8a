import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { startRedis } from '@omc/infra';
import {
  freshDatabase,
  generateTokenKeys,
  resetNats,
  serviceEnv,
  eventually,
  workspaceRoot,
} from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp, start, type GameStarted } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps } from '../src/deps.js';

describe('game service health', () => {
  const keys = generateTokenKeys();
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let redis: Awaited<ReturnType<typeof startRedis>>;
  let redisPort: number;
  const redisDir = join(workspaceRoot(), '.data', 'test', `game-health-redis-${process.pid}`);
  let app: Awaited<ReturnType<typeof buildApp>>;
  let started: GameStarted | undefined;
  let deps: Awaited<ReturnType<typeof createDeps>>;

  beforeAll(async () => {
    await resetNats();
    database = await freshDatabase();
    // A Redis of this test's own, so stopping it disturbs no other test.
    redis = await startRedis(redisDir);
    redisPort = Number(new URL(redis.url).port);
    const config = loadConfig({
      ...serviceEnv({ databaseUrl: database.url, publicKey: keys.publicKey, service: 'game' }),
      REDIS_URL: redis.urlFor('game'),
      INTERNAL_PORT: '0',
    });
    deps = await createDeps(config);
    app = await buildApp(deps, { logger: false });
    started = await start(app);
  });

  afterAll(async () => {
    await app?.close();
    await started?.stop();
    await deps?.close();
    await redis?.stop();
    rmSync(redisDir, { recursive: true, force: true });
    await database?.drop();
  });

  it('is live and reports each dependency as ready', async () => {
    expect((await app.inject('/healthz')).statusCode).toBe(200);
    const ready = await app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({
      status: 'ready',
      checks: { postgres: 'ok', redis: 'ok', nats: 'ok', endedSessions: 'ok' },
    });
  });

  it('echoes the request id it was given', async () => {
    const response = await app.inject({ url: '/api/game/state', headers: { 'x-request-id': 'req-abc-123' } });
    expect(response.headers['x-request-id']).toBe('req-abc-123');
  });

  it('answers a JSON 404 for an unknown route', async () => {
    const response = await app.inject('/api/game/nope');
    expect(response.statusCode).toBe(404);
    expect(response.json()).toMatchObject({ message: expect.stringContaining('/api/game/nope') });
  });

  it('stays ready while Redis is down, reporting it, and reports it back when it returns', async () => {
    // Every game pod shares this Redis: unready for it would take the rules, the winners and the last
    // state down with the clicks.
    await redis.stop();
    await eventually(
      async () => (await app.inject('/readyz')).json().checks.redis.startsWith('down'),
      'Redis reported down',
    );
    const down = await app.inject('/readyz');
    expect(down.statusCode).toBe(200);
    expect((await app.inject('/api/game/rules')).statusCode).toBe(200);
    redis = await startRedis(redisDir, { port: redisPort, passwords: redis.passwords });
    await eventually(
      async () => (await app.inject('/readyz')).json().checks.redis === 'ok',
      'Redis reported back',
    );
  });
});
