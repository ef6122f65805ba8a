// The user count across instances: a change is announced to the others, a heartbeat is not (an
// announced heartbeat would have every instance recount on every other's beat: work growing with the
// square of the instances).
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startRedis, type RedisHandle } from '@omc/infra';
import { eventually, workspaceRoot } from '@omc/testkit';
import { Redis } from 'ioredis';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COUNT_CHANGED_CHANNEL, startUserCount } from '../src/presence/user-count.js';

const dataDir = join(workspaceRoot(), '.data', 'test', `realtime-user-count-${process.pid}`);

describe('user count', () => {
  let server: RedisHandle;
  const clients: Redis[] = [];
  const connect = () => {
    const client = new Redis(server.urlFor('realtime'), { lazyConnect: false });
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    server = await startRedis(join(dataDir, 'redis'));
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await server?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('announces a change of its count to the others, and its heartbeats to no one', async () => {
    const announced: string[] = [];
    const listener = connect();
    await listener.subscribe(COUNT_CHANGED_CHANNEL);
    listener.on('message', (_channel, from: string) => announced.push(from));
    const redis = connect();
    let writes = 0;
    const counted = new Proxy(redis, {
      get(target, key, receiver) {
        if (key === 'multi') writes += 1;
        return Reflect.get(target, key, receiver);
      },
    });
    let local = 3;
    const count = startUserCount({
      redis: counted,
      subscriber: connect(),
      instance: 'one',
      log: pino({ level: 'silent' }),
      localCount: () => local,
      onTotal: () => undefined,
      heartbeatMs: 20,
    });
    try {
      await count.flush();
      await eventually(() => announced.length === 1, 'the first count announced');
      // Five heartbeats: each writes the count again (its key expires otherwise), none announces it.
      const after = writes;
      await eventually(() => writes >= after + 5, 'five heartbeats');
      expect(announced).toEqual(['one']);
      expect(await redis.get('omc:realtime:sockets:one')).toBe('3');
      // A change is announced.
      local = 4;
      count.markChanged();
      await eventually(async () => (await count.flush(), announced.length === 2), 'the change announced');
      expect(await redis.get('omc:realtime:sockets:one')).toBe('4');
    } finally {
      await count.stop();
    }
  });
});
