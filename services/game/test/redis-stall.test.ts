// A Redis that stalls (paused by SIGSTOP, as a node swapping or frozen looks) neither hangs requests nor
// takes the pod out of service: clicks are refused fast with 503 and Retry-After, the state is served as
// last seen, the rules and winners stay up, /readyz stays ready (reporting Redis), and everything comes
// back by itself when Redis resumes.
import { eventually } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness, type TestUser } from './support.js';

describe('a stalled Redis', () => {
  let h: Harness;
  let player: TestUser;
  const resume = () => {
    try {
      process.kill(h.redisPid(), 'SIGCONT');
    } catch {
      // Already gone.
    }
  };

  beforeAll(async () => {
    h = await startGame({ name: 'stall', env: { REDIS_COMMAND_TIMEOUT_MS: '300' } });
    player = await h.registerUser();
  });
  afterAll(async () => {
    if (h) resume();
    await h?.close();
  });

  it('refuses clicks fast, keeps serving what it can, and recovers by itself', async () => {
    expect((await h.click(player)).json()).toMatchObject({ globalClicks: 1 });
    expect((await h.state()).globalClicks).toBe(1);

    process.kill(h.redisPid(), 'SIGSTOP');
    try {
      const refused = await h.click(player);
      expect(refused.statusCode).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.json().message).toMatch(/unavailable/);

      const state = await h.app.inject('/api/game/state');
      expect(state.statusCode).toBe(200);
      expect(state.json().gameState.globalClicks).toBe(1);
      expect((await h.app.inject('/api/game/rules')).statusCode).toBe(200);
      expect((await h.app.inject('/api/winners')).statusCode).toBe(200);

      const ready = await h.app.inject('/readyz');
      expect(ready.statusCode).toBe(200);
      expect(ready.json().checks.redis).toMatch(/^down/);
    } finally {
      resume();
    }

    // Back by itself: the click refused above may have run once Redis resumed (it had been sent).
    const back = (await eventually(async () => {
      const response = await h.click(player);
      return response.statusCode === 200 ? (response.json() as { globalClicks: number }) : undefined;
    }, 'clicks accepted again'))!;
    expect(back.globalClicks).toBeGreaterThanOrEqual(2);
    expect((await h.state()).globalClicks).toBe(back.globalClicks);
    expect((await h.app.inject('/readyz')).json().checks.redis).toBe('ok');
  });
});
