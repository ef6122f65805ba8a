// One spelling per route at the front door: every route of the contracts catalogue, sent in every other
// spelling the generator can construct, is refused by the gateway with a 400 naming the route's one
// spelling, and none reaches a service (so none gets past click admission, rate limits or metrics under
// another name). The route's own spelling still reaches its owner.
import { ROUTES } from '@omc/contracts';
import { resetRedis, routeSpellings, samplePath, testInfra } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startGateway, startStandIn, type Gateway, type StandIn } from './support.js';

describe('one spelling per route', () => {
  let upstreams: Record<'auth' | 'game' | 'payments', StandIn>;
  let gateway: Gateway;
  const hits = () => Object.values(upstreams).reduce((n, s) => n + s.hits.length, 0);

  beforeAll(async () => {
    await resetRedis();
    upstreams = {
      auth: await startStandIn('auth'),
      game: await startStandIn('game'),
      payments: await startStandIn('payments'),
    };
    gateway = await startGateway({
      AUTH_URL: upstreams.auth.url,
      GAME_URL: upstreams.game.url,
      PAYMENTS_URL: upstreams.payments.url,
      REALTIME_URLS: 'http://127.0.0.1:9',
      REDIS_URL: testInfra().redisUrls.gateway,
      RATE_LIMIT_PER_IP: '0',
    });
  });

  afterAll(async () => {
    await gateway?.close();
    await Promise.allSettled(Object.values(upstreams ?? {}).map((s) => s.close()));
  });

  const send = (method: string, path: string) =>
    rawRequest(gateway.url, path, {
      method,
      ...(method === 'GET' || method === 'DELETE'
        ? {}
        : { headers: { 'content-type': 'application/json' }, body: '{}' }),
    });

  it('refuses every other spelling of every catalogue route with a 400 before any service sees it', async () => {
    const reached: string[] = [];
    let sent = 0;
    for (const route of ROUTES) {
      const path = samplePath(route.path);
      for (const spelling of routeSpellings(path)) {
        const before = hits();
        const response = await send(route.method, spelling);
        sent += 1;
        if (hits() !== before) reached.push(`${route.method} ${spelling} reached a service`);
        else if (response.status !== 400 || response.json().code !== 'BAD_PATH')
          reached.push(
            `${route.method} ${spelling} answered ${response.status} ${response.body.slice(0, 80)}`,
          );
      }
    }
    expect(sent).toBeGreaterThan(ROUTES.length * 50);
    expect(reached).toEqual([]);
  }, 120_000);

  it("names the route's one spelling in the refusal", async () => {
    for (const [spelling, canonical] of [
      ['/api/game/%63lick', '/api/game/click'],
      ['/api/GAME/Click', '/api/game/click'],
      ['/api//game/click/', '/api/game/click'],
      ['/api/winners/setpaymentmethod', '/api/winners/setPaymentMethod'],
      ['/api/game/./click.', '/api/game/click'],
    ] as const) {
      const response = await send('POST', spelling);
      expect(response.status, spelling).toBe(400);
      expect(response.json().message, spelling).toContain(canonical);
    }
    expect(hits()).toBe(0);
  });

  it("lets each route's own spelling through to its owner, query and all", async () => {
    for (const route of ROUTES) {
      const path = samplePath(route.path);
      const response = await send(route.method, `${path}?x=1`);
      expect(response.status, path).toBe(200);
      expect(response.json(), path).toMatchObject({ service: route.service, url: `${path}?x=1` });
    }
  });
});
