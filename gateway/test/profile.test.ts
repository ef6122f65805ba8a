// GET /api/user/profile in one hop: the gateway asks auth for the account and the game and payments for
// their parts itself, at once, each with the caller's token, and answers with the whole profile as the
// client's contract has it. A part whose owner fails (an error, no answer in time, an answer off
// contract) is null, the rest still answers; auth's refusal is passed on; auth away is a 503.
import { ProfileResponse } from '@omc/contracts';
import { resetRedis, testInfra } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, startStandIn, type Gateway, type StandIn } from './support.js';

type Mode = 'ok' | 'error' | 'hang' | 'garbage';

const ACCOUNT = {
  username: 'ada',
  email: 'ada@example.com',
  role: 'standard',
  preferredLanguage: 'fr',
  adminBalance: null,
  paypalEmail: null,
  freeClicks: null,
  purchasedClicks: null,
  hasInfiniteClicks: null,
  potEarned: null,
  emailVerified: true,
  pendingEmail: null,
};
const GAME = { freeClicks: 110, purchasedClicks: 40, hasInfiniteClicks: false };
const PAYMENTS = { potEarned: 12.5, paypalEmail: 'ada@paypal.example.com', adminBalance: null };

describe('the profile, put together at the gateway', () => {
  let auth: StandIn;
  let game: StandIn;
  let payments: StandIn;
  let gateway: Gateway;
  let authDown: Gateway;
  let proxying: Gateway;
  const modes: Record<'game' | 'payments', Mode> = { game: 'ok', payments: 'ok' };

  const part =
    (service: 'game' | 'payments', body: object) => (app: StandIn['app'], hits: StandIn['hits']) => {
      app.get(`/api/${service}/profile`, async (request, reply) => {
        hits.push({ method: 'GET', url: request.url, headers: request.headers, body: null });
        const mode = modes[service];
        if (mode === 'error') return reply.code(500).send({ message: 'broken' });
        if (mode === 'hang') await new Promise((resolve) => setTimeout(resolve, 3000));
        if (mode === 'garbage') return { nothing: 'useful' };
        return body;
      });
    };

  beforeAll(async () => {
    await resetRedis();
    auth = await startStandIn('auth', (app, hits) => {
      app.get('/api/user/profile', async (request, reply) => {
        hits.push({ method: 'GET', url: request.url, headers: request.headers, body: null });
        if (request.headers.authorization !== 'Bearer good')
          return reply
            .code(401)
            .send({ message: 'Session expired', error: 'Session expired', msg: 'Session expired' });
        return ACCOUNT;
      });
    });
    game = await startStandIn('game', part('game', GAME));
    payments = await startStandIn('payments', part('payments', PAYMENTS));
    const env = {
      GAME_URL: game.url,
      PAYMENTS_URL: payments.url,
      REALTIME_URLS: 'http://127.0.0.1:9',
      REDIS_URL: testInfra().redisUrls.gateway,
      RATE_LIMIT_PER_IP: '0',
      PROFILE_PART_TIMEOUT_MS: '500',
    };
    gateway = await startGateway({ ...env, AUTH_URL: auth.url });
    authDown = await startGateway({ ...env, AUTH_URL: 'http://127.0.0.1:9' });
    proxying = await startGateway({ ...env, AUTH_URL: auth.url, PROFILE_IN_ONE_HOP: 'false' });
  });

  afterAll(async () => {
    await gateway?.close();
    await authDown?.close();
    await proxying?.close();
    for (const s of [auth, game, payments]) await s?.close();
  });

  const read = async (via: Gateway = gateway, token = 'good') => {
    const response = await fetch(`${via.url}/api/user/profile`, {
      headers: { authorization: `Bearer ${token}`, 'x-request-id': 'profile-1' },
    });
    return { status: response.status, body: (await response.json()) as any };
  };

  it('answers the whole profile, each part from its owner, auth asked for the account alone', async () => {
    const { status, body } = await read();
    expect(status).toBe(200);
    expect(ProfileResponse.parse(body)).toEqual({ ...ACCOUNT, ...GAME, ...PAYMENTS });
    // Auth was told it need not ask the others (it would otherwise make the second hop itself).
    const authHit = auth.hits.at(-1)!;
    expect(authHit.headers['x-profile-parts']).toBe('account');
    expect(authHit.headers.authorization).toBe('Bearer good');
    // The game and payments were asked by the gateway directly, with the caller's token.
    for (const upstream of [game, payments]) {
      expect(upstream.hits).toHaveLength(1);
      expect(upstream.hits[0]!.headers.authorization).toBe('Bearer good');
      expect(upstream.hits[0]!.headers['x-request-id']).toBe(authHit.headers['x-request-id']);
    }
  });

  it.each(['error', 'hang', 'garbage'] as const)(
    'still answers, with nulls for the part whose owner is %s',
    async (mode) => {
      for (const down of ['game', 'payments'] as const) {
        modes[down] = mode;
        try {
          const { status, body } = await read();
          expect(status).toBe(200);
          ProfileResponse.parse(body);
          expect(body.username).toBe('ada');
          if (down === 'game')
            expect(body).toMatchObject({ freeClicks: null, hasInfiniteClicks: null, potEarned: 12.5 });
          else expect(body).toMatchObject({ freeClicks: 110, potEarned: null, paypalEmail: null });
        } finally {
          modes[down] = 'ok';
        }
      }
    },
  );

  it("passes auth's refusal on as it gave it, and answers 503 naming auth when auth is away", async () => {
    const refused = await read(gateway, 'stale');
    expect(refused.status).toBe(401);
    expect(refused.body.message).toBe('Session expired');
    const away = await read(authDown);
    expect(away.status).toBe(503);
    expect(away.body.message).toMatch(/auth service is unavailable/);
  });

  it('with PROFILE_IN_ONE_HOP=false, proxies the read to auth as it came (auth then asks the others)', async () => {
    const before = game.hits.length;
    const { status } = await read(proxying);
    expect(status).toBe(200);
    expect(auth.hits.at(-1)!.headers['x-profile-parts']).toBeUndefined();
    expect(game.hits.length).toBe(before);
  });
});
