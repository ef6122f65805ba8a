// A flood of clicks at the front door while the game is saturated (here: a stand-in game that holds
// every click until the test lets them go): a standing queue. The gateway lets a bounded number through;
// the rest wait, and once their wait has stayed above the target for the interval they are refused
// (503, Retry-After, the usual error body) without waiting for the game: the refusals all arrive while
// the admitted clicks are still held. No refused click reaches the game, none twice.
import { resetRedis } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickPathEnv, startGateway, startStandIn, type Gateway, type StandIn } from './support.js';

const MAX_IN_FLIGHT = 16;

describe('gateway under a flood of clicks', () => {
  let game: StandIn;
  let gateway: Gateway;
  let held: (() => void)[] = [];
  let clicksReached = 0;

  beforeAll(async () => {
    await resetRedis();
    game = await startStandIn('game', (app) => {
      app.post('/api/game/click', async () => {
        clicksReached += 1;
        const ordinal = clicksReached;
        await new Promise<void>((resolve) => held.push(resolve));
        return { globalClicks: ordinal, freeClicks: 1, round: 1 };
      });
    });
    gateway = await startGateway(
      clickPathEnv(game.url, {
        CLICK_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT),
      }),
    );
  });

  afterAll(async () => {
    for (const release of held) release();
    await gateway?.close();
    await game?.close();
  });

  it('refuses the excess with 503 and Retry-After, while the admitted clicks are still held', async () => {
    const flood = 300;
    const answers: { status: number; retryAfter: string | null; body: any }[] = [];
    // One click from each of `flood` players (one client's early retries are another matter:
    // impolite-client.test.ts).
    const requests = Array.from({ length: flood }, (_, i) =>
      fetch(`${gateway.url}/api/game/click`, {
        method: 'POST',
        headers: { authorization: `Bearer t${i}` },
      }).then(async (r) => {
        answers.push({ status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() });
      }),
    );
    // Every click over the limit is answered although the game has not answered a single one.
    await expect
      .poll(() => answers.length, { timeout: 20_000, interval: 20 })
      .toBeGreaterThanOrEqual(flood - MAX_IN_FLIGHT);
    expect(answers.every((a) => a.status === 503)).toBe(true);
    expect(clicksReached).toBeLessThanOrEqual(MAX_IN_FLIGHT);
    for (const a of answers) {
      expect(Number(a.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(a.body).toMatchObject({ code: 'OVERLOADED' });
      expect(a.body.message).toMatch(/busy/);
      expect(a.body.error).toBe(a.body.message);
      expect(a.body.msg).toBe(a.body.message);
    }

    // The game lets the held clicks go: each is answered once, and only they reached it.
    const release = held;
    held = [];
    for (const r of release) r();
    await Promise.all(requests);
    const accepted = answers.filter((a) => a.status === 200);
    expect(accepted.length).toBe(clicksReached);
    expect(accepted.length + answers.filter((a) => a.status === 503).length).toBe(flood);
    expect(new Set(accepted.map((a) => a.body.globalClicks)).size).toBe(accepted.length);
  });

  it('lets clicks through again once the flood has passed', async () => {
    // A gateway whose event loop ran late for a whole interval has no room (a machine short of CPU):
    // the player sends again after each refusal's Retry-After, as the web app does, and gets through.
    const reachesGame = () =>
      new Promise<'reached the game' | 'neither reached the game nor answered'>((resolve) => {
        const started = Date.now();
        const timer = setInterval(() => {
          if (held.length > 0 || Date.now() - started > 30_000) {
            clearInterval(timer);
            resolve(held.length > 0 ? 'reached the game' : 'neither reached the game nor answered');
          }
        }, 10);
      });
    for (let attempt = 1; ; attempt++) {
      const answer = fetch(`${gateway.url}/api/game/click`, { method: 'POST' });
      const first = await Promise.race([answer, reachesGame()]);
      if (first === 'reached the game') {
        held.shift()!();
        expect((await answer).status).toBe(200);
        return;
      }
      expect(first, `attempt ${attempt}`).not.toBe('neither reached the game nor answered');
      const refused = first as Response;
      expect(refused.status, `attempt ${attempt}`).toBe(503);
      expect(attempt, 'refused on every attempt').toBeLessThan(5);
      await new Promise((r) => setTimeout(r, Number(refused.headers.get('retry-after')) * 1000));
    }
  });
});
