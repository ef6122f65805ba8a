// The game's own refusals that name a Retry-After (its per-second click limits) count like the gateway's
// overload refusals: a client that keeps clicking before that Retry-After is, past its allowance,
// refused at the gateway (429 RETRY_TOO_SOON) without reaching the game; one that waits is let in, and
// another player is never touched.
import { resetRedis } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clickPathEnv,
  jwtShaped,
  startGateway,
  startStandIn,
  type Gateway,
  type StandIn,
} from './support.js';

/** Early retries a client may make within one Retry-After before it is refused for them. */
const ALLOWED = 8;

/** One token per name for the whole file: the gateway knows a client by its token exactly as sent. */
const tokens = new Map<string, string>();
const jwt = (name: string) => {
  if (!tokens.has(name)) tokens.set(name, jwtShaped(name));
  return tokens.get(name)!;
};
describe("a client that ignores the game's per-second limit", () => {
  let game: StandIn;
  let gateway: Gateway;
  const reached = new Map<string, number>();
  /**
   * Users the stand-in game refuses every click of, with the Retry-After it gives them (the game's is 1 s;
   * a longer one keeps a case that clicks many times within it from depending on the machine's speed).
   */
  const limited = new Map<string, number>();
  /** Users whose clicks the stand-in answers as a restarting game would: 503 with a Retry-After. */
  const unavailable = new Set<string>();

  beforeAll(async () => {
    await resetRedis();
    game = await startStandIn('game', (app) => {
      app.post('/api/game/click', async (request, reply) => {
        const claims = JSON.parse(
          Buffer.from(request.headers.authorization!.split('.')[1]!, 'base64url').toString('utf8'),
        ) as { sub: string };
        reached.set(claims.sub, (reached.get(claims.sub) ?? 0) + 1);
        if (unavailable.has(claims.sub))
          return reply
            .code(503)
            .header('retry-after', '1')
            .send({ message: 'The game is restarting', code: 'SERVICE_UNAVAILABLE' });
        const retryAfterS = limited.get(claims.sub);
        if (retryAfterS !== undefined)
          return reply
            .code(429)
            .header('retry-after', String(retryAfterS))
            .send({ message: 'Too many clicks: at most 20 per second', code: 'RATE_LIMITED' });
        return { globalClicks: 1, freeClicks: 1, round: 1 };
      });
    });
    gateway = await startGateway(
      clickPathEnv(game.url, {
        // Held refusals are the last case's, on a gateway of their own.
        CLICK_PENALTY_DELAY_MS: '0',
      }),
    );
  });

  afterAll(async () => {
    await gateway?.close();
    await held?.close();
    await game?.close();
  });

  let held: Gateway | undefined;
  const click = async (name: string, url = gateway.url) => {
    const r = await fetch(`${url}/api/game/click`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt(name)}`, 'content-type': 'application/json' },
      body: '{}',
    });
    return {
      status: r.status,
      retryAfter: Number(r.headers.get('retry-after')),
      body: (await r.json()) as any,
    };
  };

  it('is refused at the gateway past its allowance, and never reaches the game meanwhile', async () => {
    limited.set('script', 30);
    const first = await click('script');
    expect(first.status).toBe(429);
    expect(first.body.code).toBe('RATE_LIMITED');
    const answers = [];
    for (let i = 0; i < ALLOWED + 20; i++) answers.push(await click('script'));
    // The allowance reaches the game (and is refused there); every click after it is refused here.
    expect(answers.slice(0, ALLOWED).every((a) => a.body.code === 'RATE_LIMITED')).toBe(true);
    const early = answers.slice(ALLOWED);
    expect(
      early.every((a) => a.status === 429 && a.body.code === 'RETRY_TOO_SOON' && a.retryAfter >= 1),
    ).toBe(true);
    expect(reached.get('script')).toBe(1 + ALLOWED);
  });

  it('lets in a client that waits the Retry-After, and leaves other players alone', async () => {
    limited.set('person', 1);
    expect((await click('person')).body.code).toBe('RATE_LIMITED');
    // Three presses within the second: under the allowance, answered by the game.
    for (let i = 0; i < 3; i++) expect((await click('person')).body.code).toBe('RATE_LIMITED');
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    limited.delete('person');
    expect((await click('person')).status).toBe(200);
    for (let i = 0; i < 30; i++) expect((await click('neighbour')).status).toBe(200);
  });

  it("counts no 503 of the game against a client: a restart is nobody's fault", async () => {
    unavailable.add('patient');
    for (let i = 0; i < ALLOWED + 10; i++) expect((await click('patient')).status).toBe(503);
    expect(reached.get('patient')).toBe(ALLOWED + 10);
    unavailable.delete('patient');
    expect((await click('patient')).status).toBe(200);
  });

  it('holds each early refusal before answering it, so a client that resends at once is slowed', async () => {
    held = await startGateway(
      clickPathEnv(game.url, {
        CLICK_PENALTY_DELAY_MS: '400',
      }),
    );
    limited.set('looper', 30);
    for (let i = 0; i <= ALLOWED; i++)
      expect((await click('looper', held.url)).body.code).toBe('RATE_LIMITED');
    const reachedBefore = reached.get('looper');
    const times: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const answer = await click('looper', held.url);
      times.push(performance.now() - started);
      expect(answer.body.code).toBe('RETRY_TOO_SOON');
    }
    expect(Math.min(...times)).toBeGreaterThanOrEqual(350);
    expect(reached.get('looper')).toBe(reachedBefore);
    // A client whose answer is held and who hangs up leaves nothing behind; others are answered at once.
    const controller = new AbortController();
    const abandoned = fetch(`${held.url}/api/game/click`, {
      method: 'POST',
      headers: { authorization: `Bearer ${jwt('looper')}`, 'content-type': 'application/json' },
      body: '{}',
      signal: controller.signal,
    }).catch(() => 'aborted');
    controller.abort();
    expect(await abandoned).toBe('aborted');
    const started = performance.now();
    expect((await click('bystander', held.url)).status).toBe(200);
    expect(performance.now() - started).toBeLessThan(350);
  });
});
