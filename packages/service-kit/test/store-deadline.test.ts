// A store that takes the connection but never answers (a stalled server: paused, a long fork, a
// partition) fails each call after its deadline, and the request is answered 503 with Retry-After and
// "try again in a moment". The stalled servers here accept connections and go silent: Redis at once;
// Postgres after the start-up handshake (so a query, not the connection, waits) or before it.
import { createServer, type Socket } from 'node:net';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { createDb } from '../src/db.js';
import { createRedis } from '../src/redis.js';
import { createServer as createApp } from '../src/server.js';
import { asRequest, isStoreUnavailable } from '../src/store-deadline.js';

/** A server on a loopback port that accepts connections, optionally greets each, and then says nothing. */
async function silentServer(greeting?: Buffer): Promise<{ url: (scheme: string) => string; close(): void }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => undefined);
    // Postgres's start-up message is the first thing a client sends; the greeting answers it.
    if (greeting) socket.once('data', () => socket.write(greeting));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: (scheme) =>
      scheme === 'redis' ? `redis://127.0.0.1:${port}` : `${scheme}://u:p@127.0.0.1:${port}/db`,
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

/** AuthenticationOk then ReadyForQuery: a Postgres that lets the client in, then answers nothing. */
const PG_READY = Buffer.from([0x52, 0, 0, 0, 8, 0, 0, 0, 0, 0x5a, 0, 0, 0, 5, 0x49]);

const servers: { close(): void }[] = [];
afterAll(() => servers.forEach((s) => s.close()));

async function answerOf(work: () => Promise<unknown>) {
  const app = createApp({ name: 'test', logger: false });
  app.get('/work', async () => ({ result: await work() }));
  try {
    const started = Date.now();
    const response = await app.inject('/work');
    return { response, ms: Date.now() - started };
  } finally {
    await app.close();
  }
}

function expectRefusedFast(response: Awaited<ReturnType<typeof answerOf>>['response']): void {
  expect(response.statusCode).toBe(503);
  expect(response.headers['retry-after']).toBe('1');
  expect(response.json().message).toMatch(/try again in a moment/);
}

describe('a stalled store', () => {
  it('Redis: the command fails after its deadline and the request is answered 503', async () => {
    const silent = await silentServer();
    servers.push(silent);
    const redis = createRedis(silent.url('redis'), { commandTimeout: 200, enableReadyCheck: false });
    try {
      const { response } = await answerOf(() => redis.get('k'));
      expectRefusedFast(response);
    } finally {
      redis.disconnect();
    }
  });

  it('Postgres: a request’s query fails after its deadline, and its connection is not reused', async () => {
    const silent = await silentServer(PG_READY);
    servers.push(silent);
    const db = createDb(silent.url('postgres'), { queryTimeoutMs: 200, max: 1 });
    try {
      const { response } = await answerOf(() => sql`select 1`.execute(db));
      expectRefusedFast(response);
      // The pool's one connection had a late query: it was closed, so the next query waits for its own
      // answer (and times out on its own deadline), not behind the late one forever.
      const next = await asRequest(() => sql`select 1`.execute(db)).catch((error: Error) => error);
      expect(isStoreUnavailable(next)).toBe(true);
      // Off a request's path (migrations, a rebuild waiting for its lock) a query has no deadline.
      const unbounded = sql`select 1`.execute(db);
      const outcome = await Promise.race([
        unbounded.then(
          () => 'answered',
          () => 'failed',
        ),
        new Promise((resolve) => setTimeout(() => resolve('still waiting'), 600)),
      ]);
      expect(outcome).toBe('still waiting');
    } finally {
      void db.destroy().catch(() => undefined);
    }
  });

  it('Postgres: a connection that cannot be had in time fails the query and the request is answered 503', async () => {
    const silent = await silentServer();
    servers.push(silent);
    const db = createDb(silent.url('postgres'), { queryTimeoutMs: 200 });
    try {
      const { response } = await answerOf(() => sql`select 1`.execute(db));
      expectRefusedFast(response);
    } finally {
      void db.destroy().catch(() => undefined);
    }
  });

  it('tells store errors from others', () => {
    expect(isStoreUnavailable(new Error('Command timed out'))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('canceling statement'), { code: '57014' }))).toBe(true);
    expect(isStoreUnavailable(Object.assign(new Error('duplicate key'), { code: '23505' }))).toBe(false);
    expect(isStoreUnavailable(new Error('something else'))).toBe(false);
  });
});
