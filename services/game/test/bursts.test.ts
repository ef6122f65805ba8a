// The crowd at the decisive moment, on the real game with its click admission on: bursts of 100 and 300
// distinct players counted whole (bursts.ts; the 1,000 in bursts.chaos.test.ts), and a standing queue
// (Redis stopped while clicks keep coming) shed with 503 and Retry-After; once it drains the clicks that
// come next are taken again.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { burstSuite } from './bursts.js';
import { startGame, type Harness, type TestUser } from './support.js';

burstSuite([100, 300]);

describe('a standing queue', () => {
  let h: Harness;
  let players: TestUser[];
  const resume = () => {
    try {
      process.kill(h.redisPid(), 'SIGCONT');
    } catch {
      // Already gone.
    }
  };

  beforeAll(async () => {
    h = await startGame({
      name: 'standing',
      env: {
        ROUND_TARGET: '1000000',
        CLICK_QUEUE_MAX: '2000',
        CLICK_QUEUE_IN_FLIGHT: '4',
        CLICK_QUEUE_TARGET_MS: '20',
        CLICK_QUEUE_INTERVAL_MS: '200',
        // The clicks in flight wait for Redis rather than fail: only the admission refuses here.
        REDIS_COMMAND_TIMEOUT_MS: '60000',
      },
    });
    players = await h.registerUsers(60);
  });
  afterAll(async () => {
    if (h) resume();
    await h?.close();
  });

  it('sheds what waits behind a stopped Redis with 503 and Retry-After, then takes the clicks that come next', async () => {
    const before = (await h.state()).globalClicks;
    process.kill(h.redisPid(), 'SIGSTOP');
    let answers: Awaited<ReturnType<Harness['click']>>[];
    try {
      let settled = 0;
      const pending = players.slice(0, 40).map((p) => h.click(p).finally(() => (settled += 1)));
      // Four clicks are in flight (stuck on Redis); the 36 waiting behind them are answered without it.
      await expect.poll(() => settled, { timeout: 30_000, interval: 20 }).toBe(36);
      resume();
      answers = await Promise.all(pending);
    } finally {
      resume();
    }
    const refused = answers.filter((r) => r.statusCode === 503);
    expect(refused).toHaveLength(36);
    for (const r of refused) {
      expect(r.headers['retry-after']).toBe('1');
      expect(r.json()).toMatchObject({ code: 'OVERLOADED' });
      expect(r.json().message).toMatch(/busy/);
    }
    expect(answers.filter((r) => r.statusCode === 200)).toHaveLength(4);
    expect((await h.state()).globalClicks - before).toBe(4);
    const metrics = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(/^game_clicks_shed_total\{[^}]*\} 36$/m);
    // The queue drained: nothing of the overload is held against the clicks that come next.
    for (const player of players.slice(40)) expect((await h.click(player)).statusCode).toBe(200);
  });
});
