// A flood of clicks larger than the click queue may hold: the excess is refused at once (503,
// Retry-After, the usual error body) instead of waiting in an unbounded queue, and the counter moves by
// exactly the clicks that were accepted, each with its own ordinal.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness, type TestUser } from './support.js';

describe('a flood of clicks', () => {
  let h: Harness;
  let players: TestUser[];

  beforeAll(async () => {
    h = await startGame({
      name: 'flood',
      env: {
        ROUND_TARGET: '1000000',
        SIGNUP_FREE_CLICKS: '100000',
        CLICK_RATE_PER_USER: '1000000',
        CLICK_QUEUE_IN_FLIGHT: '4',
        CLICK_QUEUE_MAX: '8',
      },
    });
    players = await h.registerUsers(20);
  });
  afterAll(async () => h?.close());

  it('refuses what the bounded queue cannot hold with 503 and Retry-After, and counts every accepted click once', async () => {
    const before = (await h.state()).globalClicks;
    const responses = await Promise.all(
      Array.from({ length: 400 }, (_, i) => h.click(players[i % players.length]!)),
    );
    const accepted = responses.filter((r) => r.statusCode === 200);
    const refused = responses.filter((r) => r.statusCode === 503);
    expect(accepted.length + refused.length).toBe(responses.length);
    expect(accepted.length).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const r of refused) {
      expect(Number(r.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      const body = r.json();
      expect(body.code).toBe('OVERLOADED');
      expect(body.message).toMatch(/busy/);
      expect(body.error).toBe(body.message);
      expect(body.msg).toBe(body.message);
    }
    const ordinals = accepted.map((r) => r.json().globalClicks as number);
    expect(new Set(ordinals).size).toBe(ordinals.length);
    expect((await h.state()).globalClicks - before).toBe(accepted.length);
    // An operator sees the shedding on /metrics (the OmcClicksShed alert reads it).
    const metrics = await h.app.inject({ method: 'GET', url: '/metrics' });
    expect(metrics.body).toMatch(new RegExp(`^game_clicks_shed_total\\{[^}]*\\} ${refused.length}$`, 'm'));
    expect(metrics.body).toMatch(/^game_click_queue_limit\{[^}]*\} \d+$/m);
  });

  it('takes clicks again once the flood has passed', async () => {
    for (const player of players.slice(0, 5)) expect((await h.click(player)).statusCode).toBe(200);
  });
});
