// A client that keeps resending after a refusal, beside players that honour Retry-After. The game is a
// stand-in that holds clicks until the test lets them go, so the click path can be saturated at will.
// A client refused for overload that clicks again before its Retry-After is refused at once (429) and
// never reaches the game, even once the game has room again; its wait grows with each early retry.
// A player who waited, or who shares its address but was never refused, is let in. What the gateway
// remembers of refused clients is bounded.
import { resetRedis, testInfra } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, startStandIn, type Gateway, type StandIn } from './support.js';

const MAX_IN_FLIGHT = 4;
const MAX_KEYS = 20;

describe('a client that ignores Retry-After', () => {
  let game: StandIn;
  let gateway: Gateway;
  let held: (() => void)[] = [];
  const reached: string[] = [];

  beforeAll(async () => {
    await resetRedis();
    game = await startStandIn('game', (app) => {
      app.post('/api/game/click', async (request) => {
        reached.push(String(request.headers.authorization));
        await new Promise<void>((resolve) => held.push(resolve));
        return { globalClicks: reached.length, freeClicks: 1, round: 1 };
      });
    });
    gateway = await startGateway({
      AUTH_URL: 'http://127.0.0.1:9',
      GAME_URL: game.url,
      PAYMENTS_URL: 'http://127.0.0.1:9',
      REALTIME_URLS: 'http://127.0.0.1:9',
      REDIS_URL: testInfra().redisUrl,
      RATE_LIMIT_PER_IP: '0',
      CLICK_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT),
      CLICK_PENALTY_MAX_KEYS: String(MAX_KEYS),
      // Each case comes from its own address (X-Forwarded-For from the loopback proxy).
      TRUST_PROXY: 'loopback',
    });
  });

  afterAll(async () => {
    for (const release of held) release();
    await gateway?.close();
    await game?.close();
  });

  let from = '198.51.100.1';
  const click = async (token: string) => {
    const r = await fetch(`${gateway.url}/api/game/click`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'x-forwarded-for': from,
      },
      body: '{}',
    });
    return {
      status: r.status,
      retryAfter: Number(r.headers.get('retry-after')),
      body: (await r.json()) as any,
    };
  };

  /** Fills the click path with held clicks; returns the pending answers. */
  const saturate = async () => {
    const before = held.length;
    const pending = Array.from({ length: MAX_IN_FLIGHT }, (_, i) => click(`holder-${before + i}`));
    await expect.poll(() => held.length, { timeout: 10_000, interval: 10 }).toBe(before + MAX_IN_FLIGHT);
    return pending;
  };
  const releaseAll = () => {
    const release = held;
    held = [];
    for (const r of release) r();
  };

  it('refuses its early retries at once without reaching the game, and lets the polite players in', async () => {
    // Two players on the same address as the impolite client have clicked before.
    for (const player of ['polite', 'neighbour']) {
      const first = click(player);
      await expect.poll(() => held.length, { timeout: 10_000, interval: 10 }).toBe(1);
      releaseAll();
      expect((await first).status).toBe(200);
    }
    const pending = await saturate();
    // Both are refused for overload and told to come back in a second.
    const impolite = await click('impolite');
    const polite = await click('polite');
    for (const refusal of [impolite, polite]) {
      expect(refusal.status).toBe(503);
      expect(refusal.retryAfter).toBeGreaterThanOrEqual(1);
    }
    // The game has room again.
    releaseAll();
    await Promise.all(pending);
    const reachedBefore = reached.length;

    // The impolite client resends at once, again and again: refused each time, its wait growing.
    const retries = [];
    for (let i = 0; i < 12; i += 1) retries.push(await click('impolite'));
    for (const r of retries) {
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({ code: 'RETRY_TOO_SOON' });
      expect(r.body.message).toMatch(/Retry-After/);
    }
    expect(retries.at(-1)!.retryAfter).toBeGreaterThan(retries[0]!.retryAfter);
    expect(retries.at(-1)!.retryAfter).toBeLessThanOrEqual(30);
    expect(reached.length).toBe(reachedBefore);

    // Another player on the same address who was never refused clicks: let in, although the address
    // has retried early again and again (a made-up token from it would now be refused).
    expect((await click('made-up')).status).toBe(429);
    const neighbour = click('neighbour');
    await expect.poll(() => held.length, { timeout: 10_000, interval: 10 }).toBe(1);
    releaseAll();
    expect((await neighbour).status).toBe(200);

    // The polite player waits its Retry-After, then clicks: let in.
    await new Promise((resolve) => setTimeout(resolve, polite.retryAfter * 1000 + 100));
    const politeAgain = click('polite');
    await expect.poll(() => held.length, { timeout: 10_000, interval: 10 }).toBe(1);
    releaseAll();
    expect((await politeAgain).status).toBe(200);
    expect(reached.filter((token) => token === 'Bearer impolite')).toEqual([]);
  });

  it('cannot get another player penalised by sending a token that claims to be theirs', async () => {
    // A token is remembered exactly as sent: a forged one naming the same user is another client.
    from = '198.51.100.2';
    const pending = await saturate();
    const forged = await click('forged.eyJzdWIiOiJ2aWN0aW0ifQ.x');
    expect(forged.status).toBe(503);
    releaseAll();
    await Promise.all(pending);
    expect((await click('forged.eyJzdWIiOiJ2aWN0aW0ifQ.x')).status).toBe(429);
    const victim = click('victim.eyJzdWIiOiJ2aWN0aW0ifQ.signed');
    await expect.poll(() => held.length, { timeout: 10_000, interval: 10 }).toBe(1);
    releaseAll();
    expect((await victim).status).toBe(200);
  });

  it('remembers a bounded number of refused clients', async () => {
    from = '2001:db8:7:7::1';
    const pending = await saturate();
    for (let i = 0; i < MAX_KEYS * 3; i += 1) expect((await click(`many-${i}`)).status).toBe(503);
    releaseAll();
    await Promise.all(pending);
    const metrics = await (await fetch(`${gateway.internalUrl}/metrics`)).text();
    const line = metrics.split('\n').find((l) => l.startsWith('gateway_click_penalised_clients'));
    expect(line).toBeDefined();
    const remembered = Number(line!.split(' ').at(-1));
    expect(remembered).toBeGreaterThan(0);
    expect(remembered).toBeLessThanOrEqual(MAX_KEYS);
    // The most recently refused are the ones remembered.
    expect((await click(`many-${MAX_KEYS * 3 - 1}`)).status).toBe(429);
  });
});
