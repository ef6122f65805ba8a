// One hostile request must not freeze a process for everyone else. Generated from the route catalogue:
// every string field of every route gets the worst values we can build (inputs that make a backtracking
// pattern quadratic, maximum lengths at the largest body the gateway admits), and every route gets deep
// nesting and many keys. Each process's own event-loop monitor (prom-client's nodejs_eventloop_lag_max,
// reset at each scrape) tells the worst delay the request caused to the gateway and the route's owner,
// against the worst of plain requests measured the same way in the same run: the budget is 20 ms over
// that. A request over budget is sent again, up to four more times with growing pauses, and its best
// reading counts: a freeze an input causes comes back every time, a neighbour's burst of CPU on a shared
// machine does not.
import { ROUTES, type RouteContract } from '@omc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { figures, invariant, reportFigures, suite, violations } from '../src/context.js';
import { call, loginAdmin, registerPlayer, sleep, type Player } from '../src/http.js';
import { VALID_BODIES } from '../src/samples.js';

const BUDGET_MS = 20;
/** A request over budget is sent again, up to this many times in all, after a pause that doubles. */
const TRIES = 5;
const RETRY_PAUSE_MS = 250;
/** The gateway admits 64 KiB; leave room for the other fields and the JSON around the value. */
const ROOM = 60_000;
const WATCHED = ['gateway', 'auth', 'game', 'payments'];

let admin: Player;
let player: Player;
beforeAll(async () => {
  admin = await loginAdmin();
  player = await registerPlayer('loop');
});
afterAll(reportFigures);

/** Reads (and so resets) each watched process's worst event-loop delay since its last reading, in ms. */
async function eventLoopMax(): Promise<Record<string, number>> {
  const readings = await Promise.all(
    WATCHED.map(async (name) => {
      const text = await fetch(`${suite().urls[name]}/metrics`).then((r) => r.text());
      const line = text.split('\n').find((l) => l.startsWith('nodejs_eventloop_lag_max_seconds'));
      return [name, line ? Number(line.split(' ').at(-1)) * 1000 : 0] as const;
    }),
  );
  return Object.fromEntries(readings);
}

/** The worst delay per process while `request` ran. */
async function delayDuring(request: () => Promise<unknown>): Promise<Record<string, number>> {
  await eventLoopMax();
  await request();
  return eventLoopMax();
}

function stringFields(route: RouteContract): string[] {
  let schema: any = route.body;
  while (schema && !(schema instanceof z.ZodObject) && schema.def?.innerType) schema = schema.def.innerType;
  if (!(schema instanceof z.ZodObject)) return [];
  return Object.entries(schema.shape)
    .filter(([, field]: [string, any]) => {
      let inner = field;
      while (inner && inner.def?.innerType) inner = inner.def.innerType;
      return inner instanceof z.ZodString || inner?.def?.type === 'pipe' || inner?.def?.type === 'string';
    })
    .map(([name]) => name);
}

const HOSTILE_STRINGS: [string, string][] = [
  ['dots between two @', 'a@' + '.'.repeat(ROOM) + '@'],
  ['many @', '@'.repeat(ROOM)],
  ['labels without an end', 'a@b' + '.c'.repeat(ROOM / 2) + ' '],
  ['letters then a bad one', 'a'.repeat(ROOM) + '!'],
  ['spaces', ' '.repeat(ROOM) + 'x'],
  ['two-byte letters', 'é'.repeat(ROOM / 2)],
  ['digits and dots', '1.'.repeat(ROOM / 2) + 'x'],
];

const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const manyKeys = (n: number) => '{' + Array.from({ length: n }, (_, i) => `"k${i}":0`).join(',') + '}';
const HOSTILE_BODIES: [string, string][] = [
  ['nesting', nested(Math.floor(ROOM / 6))],
  ['many keys', manyKeys(Math.floor(ROOM / 9))],
  ['a long array', '[' + '0,'.repeat(ROOM / 2) + '0]'],
];

const tokenFor = (r: RouteContract) =>
  r.auth === 'admin' ? admin.token : r.auth === 'user' || r.auth === 'optional' ? player.token : undefined;
const label = (r: RouteContract) => `${r.method} ${r.path}`;

describe('the event loop under the worst inputs of every route', () => {
  it('no hostile request delays any process more than the budget over a plain request', async () => {
    let baseline = 0;
    for (let i = 0; i < 20; i++) {
      const plain = await delayDuring(() =>
        call('POST', '/api/user/login', { body: { emailOrUsername: 'nobody_here', password: 'x' } }),
      );
      baseline = Math.max(baseline, ...Object.values(plain));
    }
    figures.eventLoopBaselineMs = baseline;

    const worst: Record<string, number> = {};
    const attack = async (route: RouteContract, what: string, raw: string) => {
      const watched = ['gateway', route.service];
      const best: Record<string, number> = {};
      for (let tries = 0; tries < TRIES; tries++) {
        // Spaced out: a neighbour's burst of CPU passes, a freeze the input causes does not.
        if (tries > 0) await sleep(RETRY_PAUSE_MS * 2 ** (tries - 1));
        figures.attacks += 1;
        let status = 0;
        const delays = await delayDuring(async () => {
          const headers = { 'content-type': 'application/json' };
          status = (await call(route.method, route.path, { token: tokenFor(route), raw, headers })).status;
        });
        invariant(`${what} on ${label(route)} is answered without a 5xx`, status > 0 && status < 500, status);
        for (const process of watched)
          best[process] = Math.min(best[process] ?? Infinity, delays[process] ?? 0);
        if (watched.every((process) => best[process]! <= baseline + BUDGET_MS)) break;
      }
      for (const process of watched) {
        const ms = best[process]!;
        worst[process] = Math.max(worst[process] ?? 0, ms);
        invariant(
          `${what} on ${label(route)} holds ${process}'s event loop within ${BUDGET_MS} ms of a plain request`,
          ms <= baseline + BUDGET_MS,
          `${ms.toFixed(1)} ms (plain ${baseline.toFixed(1)} ms)`,
        );
      }
    };

    for (const route of ROUTES.filter((r) => r.method !== 'GET')) {
      const valid = VALID_BODIES[route.path] ?? {};
      for (const field of stringFields(route)) {
        for (const [what, value] of HOSTILE_STRINGS) {
          await attack(route, `${field}: ${what}`, JSON.stringify({ ...valid, [field]: value }));
        }
      }
      for (const [what, raw] of HOSTILE_BODIES) await attack(route, what, raw);
    }
    figures.eventLoopWorstMs = worst;
    expect(violations()).toEqual([]);
  });
});
