// A client that keeps resending after a refusal, beside players that honour Retry-After. The game is a
// stand-in that holds clicks until the test lets them go, so the click path can be saturated at will
// (it answers a click without a token, or with an expired one, with 401 at once, as the game does).
// A client refused for overload that keeps clicking before its Retry-After is, past a few early
// retries, refused at once (429) and never reaches the game, even once the game has room again; each
// refusal asks it to wait the Retry-After it ignored, no longer. A player who waited, one who retried a
// few times after a short pause of its own, or one who shares the address but was never refused, is let
// in. A malformed click from a refused client is told what is wrong with it. What the gateway remembers
// is bounded.
import { resetRedis } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clickPathEnv, startGateway, startStandIn, type Gateway, type StandIn } from './support.js';

const MAX_IN_FLIGHT = 4;
const MAX_KEYS = 20;
/** Early retries a client may make within one Retry-After before it is refused for them. */
const ALLOWED = 8;

/** A bearer token shaped like auth's (header.claims.signature); the stand-in does not check signatures. */
const jwt = (name: string, expiresInS = 3600, signature = 'sig') =>
  [
    Buffer.from('{"alg":"EdDSA"}').toString('base64url'),
    Buffer.from(JSON.stringify({ sub: name, exp: Math.floor(Date.now() / 1000) + expiresInS })).toString(
      'base64url',
    ),
    signature,
  ].join('.');

const expired = (authorization: string | undefined) => {
  try {
    const claims = JSON.parse(Buffer.from(authorization!.split('.')[1]!, 'base64url').toString('utf8'));
    return claims.exp * 1000 <= Date.now();
  } catch {
    return true;
  }
};

describe('a client that ignores Retry-After', () => {
  let game: StandIn;
  let gateway: Gateway;
  let held: (() => void)[] = [];
  const reached: string[] = [];

  beforeAll(async () => {
    await resetRedis();
    game = await startStandIn('game', (app) => {
      app.post('/api/game/click', async (request, reply) => {
        const authorization = request.headers.authorization;
        if (!authorization || expired(authorization))
          return reply.code(401).send({ message: 'Missing or expired token', code: 'UNAUTHORIZED' });
        reached.push(authorization);
        await new Promise<void>((resolve) => held.push(resolve));
        return { globalClicks: reached.length, freeClicks: 1, round: 1 };
      });
    });
    gateway = await startGateway(
      clickPathEnv(game.url, {
        CLICK_MAX_IN_FLIGHT: String(MAX_IN_FLIGHT),
        // The early-retry refusal is on by default: only its bound is set here, and its refusals are sent
        // at once (held, they are game-refusals-penalty.test.ts's case).
        CLICK_PENALTY_MAX_KEYS: String(MAX_KEYS),
        CLICK_PENALTY_DELAY_MS: '0',
        // Each case comes from its own address (X-Forwarded-For from the loopback proxy).
        TRUST_PROXY: 'loopback',
      }),
    );
  });

  afterAll(async () => {
    for (const release of held) release();
    await gateway?.close();
    await game?.close();
  });

  let from = '198.51.100.1';
  const tokens = new Map<string, string>();
  const tokenOf = (name: string) => {
    if (!tokens.has(name)) tokens.set(name, jwt(name));
    return tokens.get(name)!;
  };
  const send = async (
    authorization: string | undefined,
    options: { body?: string; contentType?: string } = {},
  ) => {
    const headers: Record<string, string> = { 'x-forwarded-for': from };
    if (authorization) headers.authorization = authorization;
    const body = options.body ?? '{}';
    if (body !== '') headers['content-type'] = options.contentType ?? 'application/json';
    const r = await fetch(`${gateway.url}/api/game/click`, {
      method: 'POST',
      headers,
      body: body || undefined,
    });
    return {
      status: r.status,
      retryAfter: Number(r.headers.get('retry-after')),
      body: (await r.json()) as any,
    };
  };
  const click = (name: string) => send(`Bearer ${tokenOf(name)}`);

  /** Fills the click path with held clicks; returns the pending answers. */
  const saturate = async () => {
    const before = held.length;
    const pending = Array.from({ length: MAX_IN_FLIGHT }, (_, i) => click(`holder-${before + i}-${from}`));
    await expect.poll(() => held.length, { timeout: 10_000, interval: 10 }).toBe(before + MAX_IN_FLIGHT);
    return pending;
  };
  const releaseAll = () => {
    const release = held;
    held = [];
    for (const r of release) r();
  };
  /**
   * One click let through to the game and answered. A gateway whose event loop ran late (a loaded
   * machine, docs/performance.md "A gateway short of CPU counts too") may shed it at the door with 503:
   * the client then waits its Retry-After, as a polite one does, and sends it again.
   */
  const clickThrough = async (name: string) => {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const answer = click(name);
      let answered: Awaited<typeof answer> | undefined;
      void answer.then((a) => (answered = a));
      while (held.length === 0 && !answered) {
        expect(Date.now(), `${name}'s click reached the game`).toBeLessThan(deadline);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      if (!answered) {
        expect(held.length).toBe(1);
        releaseAll();
        return answer;
      }
      if (answered.status !== 503) return answered;
      await new Promise((resolve) => setTimeout(resolve, answered!.retryAfter * 1000 + 100));
    }
  };
  /** A client refused for overload, then resending at once until it is refused for not waiting. */
  const catchImpolite = async (name: string) => {
    expect((await click(name)).status).toBe(503);
    for (let i = 0; i < ALLOWED; i += 1) expect((await click(name)).status).toBe(503);
    const refusal = await click(name);
    expect(refusal.status).toBe(429);
    return refusal;
  };

  it('refuses its early retries once it kept at it, without reaching the game, and lets the polite players in', async () => {
    // Two players on the same address as the impolite client have clicked before.
    for (const player of ['polite', 'neighbour']) expect((await clickThrough(player)).status).toBe(200);
    const pending = await saturate();
    // Both are refused for overload and told to come back in a second.
    const impolite = await click('impolite');
    const polite = await click('polite');
    for (const refusal of [impolite, polite]) {
      expect(refusal.status).toBe(503);
      expect(refusal.retryAfter).toBeGreaterThanOrEqual(1);
    }
    // The impolite client resends at once: its first few early retries are shed like any click...
    for (let i = 0; i < ALLOWED; i += 1) expect((await click('impolite')).status).toBe(503);
    // ...then it is refused for not waiting, and stays refused once the game has room again.
    releaseAll();
    await Promise.all(pending);
    const reachedBefore = reached.length;
    const retries = [];
    for (let i = 0; i < 12; i += 1) retries.push(await click('impolite'));
    for (const r of retries) {
      expect(r.status).toBe(429);
      expect(r.body).toMatchObject({ code: 'RETRY_TOO_SOON' });
      expect(r.body.message).toMatch(/Retry-After/);
    }
    // Each is told the Retry-After it ignored, no more: the wait does not grow with its retries.
    for (const r of retries) expect(r.retryAfter).toBe(1);
    expect(reached.length).toBe(reachedBefore);

    // Another player on the same address who was never refused clicks: let in.
    expect((await clickThrough('neighbour')).status).toBe(200);
    // The polite player waits its Retry-After, then clicks: let in.
    await new Promise((resolve) => setTimeout(resolve, polite.retryAfter * 1000 + 100));
    expect((await clickThrough('polite')).status).toBe(200);
    expect(reached.filter((token) => token === `Bearer ${tokenOf('impolite')}`)).toEqual([]);
  });

  it('tells a refused client what is wrong with a malformed click rather than refusing it', async () => {
    from = '198.51.100.5';
    const pending = await saturate();
    await catchImpolite('sloppy');
    releaseAll();
    await Promise.all(pending);
    const token = `Bearer ${tokenOf('sloppy')}`;
    // Still refused for a well-formed click...
    expect((await send(token)).status).toBe(429);
    // ...but a body that is not JSON is a 400 that says so, a body too large a 413, another type a 415.
    const notJson = await send(token, { body: '{"unterminated": ' });
    expect(notJson.status).toBe(400);
    expect(notJson.body.message).toMatch(/not valid JSON/);
    const big = await send(token, { body: JSON.stringify({ padding: 'x'.repeat(200 * 1024) }) });
    expect(big.status).toBe(413);
    expect(big.body.message).toMatch(/too large/);
    expect((await send(token, { body: 'hello', contentType: 'text/plain' })).status).toBe(415);
    // From the same address, a click with no token, a token of another shape or an expired one is
    // told by the game that it cannot click (401), not refused for the address's record.
    expect((await send(undefined)).status).toBe(401);
    expect((await send('Bearer not-a-token')).status).toBe(401);
    expect((await send(`Bearer ${jwt('sloppy', -60)}`)).status).toBe(401);
  });

  it('never refuses a player that retries a few times a second, nor one that honours Retry-After', async () => {
    // Behind the same address as an impolite client: one player pauses 200 ms after each refusal and
    // clicks again (the reliability suite's players), another waits out each Retry-After.
    from = '198.51.100.6';
    const pending = await saturate();
    await catchImpolite('rude');
    const impatient: number[] = [];
    const patient: number[] = [];
    let patientNext = 0;
    for (let t = 0; t < 3000; t += 200) {
      impatient.push((await click('impatient')).status);
      if (Date.now() >= patientNext) {
        const answer = await click('patient');
        patient.push(answer.status);
        patientNext = Date.now() + answer.retryAfter * 1000;
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(new Set(impatient)).toEqual(new Set([503]));
    expect(new Set(patient)).toEqual(new Set([503]));
    expect(patient.length).toBeGreaterThan(1);
    releaseAll();
    await Promise.all(pending);
    expect((await clickThrough('impatient')).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, patientNext - Date.now())));
    expect((await clickThrough('patient')).status).toBe(200);
  });

  it('takes the early retries of unproven tokens from an address whose clients were caught again and again', async () => {
    from = '198.51.100.7';
    expect((await clickThrough('regular')).status).toBe(200);
    const pending = await saturate();
    for (const name of ['bot-1', 'bot-2', 'bot-3']) await catchImpolite(name);
    // A fresh token from there is refused at its first early retry; a player whose clicks were
    // counted before keeps its few early retries.
    expect((await click('bot-4')).status).toBe(503);
    expect((await click('bot-4')).status).toBe(429);
    expect((await click('regular')).status).toBe(503);
    for (let i = 0; i < ALLOWED; i += 1) expect((await click('regular')).status).toBe(503);
    releaseAll();
    await Promise.all(pending);
  });

  it('cannot get another player penalised by sending a token that claims to be theirs', async () => {
    // A token is remembered exactly as sent: a forged one naming the same user is another client.
    from = '198.51.100.2';
    const forged = `Bearer ${jwt('victim', 3600, 'forged')}`;
    tokens.set('forged', forged.slice(7));
    tokens.set('victim', jwt('victim', 3600, 'signed'));
    const pending = await saturate();
    await catchImpolite('forged');
    releaseAll();
    await Promise.all(pending);
    expect((await click('forged')).status).toBe(429);
    expect((await clickThrough('victim')).status).toBe(200);
  });

  it('remembers a bounded number of refused clients', async () => {
    from = '2001:db8:7:7::1';
    const pending = await saturate();
    for (let i = 0; i < MAX_KEYS * 3; i += 1) expect((await click(`many-${i}`)).status).toBe(503);
    const metrics = await (await fetch(`${gateway.internalUrl}/metrics`)).text();
    const line = metrics.split('\n').find((l) => l.startsWith('gateway_click_penalised_clients'));
    expect(line).toBeDefined();
    const remembered = Number(line!.split(' ').at(-1));
    expect(remembered).toBeGreaterThan(0);
    expect(remembered).toBeLessThanOrEqual(MAX_KEYS);
    // The most recently refused are the ones remembered: still caught by its early retries.
    const last = `many-${MAX_KEYS * 3 - 1}`;
    for (let i = 0; i < ALLOWED; i += 1) expect((await click(last)).status).toBe(503);
    expect((await click(last)).status).toBe(429);
    releaseAll();
    await Promise.all(pending);
  });
});
