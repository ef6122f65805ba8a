// A stalled store (every process of it SIGSTOPped: a long fork, a failover, a partition) is refused fast.
// While Redis or Postgres is paused, the game's state, a click, a sign-in and the profile are answered
// within STALL_ANSWER_BOUND_MS, each either served or refused with 503, Retry-After and a message; the
// services' readiness reports the store down; a click refused was not counted; and clicks are accepted
// again within STALL_RESUME_BOUND_MS of the store's return. Paused NATS is the control. The requests go
// through a gateway with its per-address request limit on (as `npm start` runs), so the gateway's own
// Redis use is on the path too. Bounds: docs/reliability.md, the promises, "stalled store".
import { afterAll, describe, expect, it } from 'vitest';
import { untilGameKnows } from '../src/actions.js';
import { extraGateway, pausePart, reportFigures, resumePart, suite } from '../src/context.js';
import { call, login, registerPlayer, waitFor, type Answer, type Player } from '../src/http.js';

afterAll(reportFigures);

/** A request on a stalled store's path is answered within this (docs/reliability.md). */
const STALL_ANSWER_BOUND_MS = 2000;
/** Clicks are accepted again within this of the store's return (docs/reliability.md). */
const STALL_RESUME_BOUND_MS = 15_000;

type Store = 'redis' | 'postgres' | 'nats';

/** Served, or refused as unavailable with when to try again and a message; never left unanswered. */
function servedOrRefusedFast(what: string, answer: Answer): void {
  expect(answer.status, `${what}: answered within ${STALL_ANSWER_BOUND_MS} ms`).not.toBe(0);
  if (answer.status === 503) {
    expect(answer.headers.get('retry-after'), `${what}: Retry-After`).toMatch(/^\d+$/);
    expect(answer.body?.message, `${what}: a message`).toMatch(/again/i);
  } else expect(answer.status, `${what}: ${answer.text}`).toBeLessThan(300);
}

async function readiness(service: string): Promise<Record<string, string>> {
  const response = await fetch(`${suite().urls[service]}/readyz`, {
    signal: AbortSignal.timeout(STALL_ANSWER_BOUND_MS),
  });
  return ((await response.json()) as { checks: Record<string, string> }).checks;
}

describe('a stalled store is refused fast', () => {
  let gateway: string;
  const on = (store: Store) => ({ baseUrl: gateway, timeoutMs: STALL_ANSWER_BOUND_MS, store });

  it.each<Store>(['redis', 'postgres', 'nats'])(
    '%s paused: state, click, sign-in and profile answer at once; clicks come back by themselves',
    async (store) => {
      gateway ??= await extraGateway({ RATE_LIMIT_PER_IP: '100000' });
      const player: Player = await registerPlayer('stall');
      await untilGameKnows(player);
      const options = on(store);
      const first = await call('POST', '/api/game/click', {
        ...options,
        token: player.token,
        timeoutMs: 15_000,
      });
      expect(first.status, first.text).toBe(200);
      const balance = first.body.freeClicks as number;

      await pausePart(store);
      let resumedAt = 0;
      try {
        const state = await call('GET', '/api/game/state', options);
        servedOrRefusedFast('GET /api/game/state', state);
        const refused = await call('POST', '/api/game/click', { ...options, token: player.token });
        servedOrRefusedFast('POST /api/game/click', refused);
        if (store === 'redis') expect(refused.status).toBe(503);
        const counted = refused.status === 200 ? 1 : 0;
        // A click that lands on a milestone of the shared round is rewarded (its answer says so).
        const rewards = (answer: Answer) =>
          answer.status === 200 ? ((answer.body.milestone?.freeClicks as number | undefined) ?? 0) : 0;
        servedOrRefusedFast(
          'POST /api/user/login',
          await call('POST', '/api/user/login', {
            ...options,
            body: { emailOrUsername: player.username, password: player.password },
          }),
        );
        servedOrRefusedFast(
          'GET /api/user/profile',
          await call('GET', '/api/user/profile', { ...options, token: player.token }),
        );
        if (store !== 'nats')
          for (const service of ['game', 'auth'])
            expect((await readiness(service))[store], `${service}'s readiness`).toMatch(/^down/);

        await resumePart(store);
        resumedAt = Date.now();
        // Nothing half done: the click refused above was not counted (nor spent) once the store is back.
        const { value: back } = await waitFor(
          'a click accepted after the store came back',
          async () => {
            const answer = await call('POST', '/api/game/click', { ...options, token: player.token });
            return answer.status === 200 ? answer : undefined;
          },
          STALL_RESUME_BOUND_MS,
          100,
        );
        expect(back.body.freeClicks, 'the balance after the stall').toBe(
          balance - counted - 1 + rewards(refused) + rewards(back),
        );
        expect((await login(player.username, player.password)).token).toBeTruthy();
      } finally {
        if (!resumedAt) await resumePart(store);
      }
    },
  );
});
