// A store that is down makes its client fail at every reconnect; the log holds one line per outage.
import { createServer } from 'node:net';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { createDb } from '../src/db.js';
import { createRedis } from '../src/redis.js';
import { sql } from 'kysely';

/** A pino logger that keeps its lines. */
function capture() {
  const lines: { level: number; msg: string; store?: string }[] = [];
  const log = pino({ level: 'info' }, { write: (line: string) => lines.push(JSON.parse(line)) });
  return { log, lines };
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('connection errors', () => {
  it('of Redis are logged once per outage, however often it reconnects', async () => {
    const { log, lines } = capture();
    const redis = createRedis(`redis://127.0.0.1:${await closedPort()}`, { retryStrategy: () => 20 }, log);
    let errors = 0;
    redis.on('error', () => (errors += 1));
    try {
      await expect.poll(() => errors, { timeout: 10_000 }).toBeGreaterThanOrEqual(5);
    } finally {
      redis.disconnect();
    }
    expect(lines.filter((l) => l.store === 'redis').map((l) => [l.level, l.msg])).toEqual([
      [50, 'redis unreachable; reconnecting (logged once until it is back)'],
    ]);
  });

  it('of Postgres are logged once per outage, however many queries fail', async () => {
    const { log, lines } = capture();
    const db = createDb(`postgres://u@127.0.0.1:${await closedPort()}/db`, { log });
    try {
      for (let i = 0; i < 3; i++) await expect(sql`select 1`.execute(db)).rejects.toThrow();
    } finally {
      await db.destroy();
    }
    expect(lines.filter((l) => l.store === 'postgres').map((l) => [l.level, l.msg])).toEqual([
      [50, 'postgres unreachable; reconnecting (logged once until it is back)'],
    ]);
  });
});
