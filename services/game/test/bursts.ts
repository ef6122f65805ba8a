// Bursts of distinct players pressing once each, on the real game (Redis, Postgres, NATS) with its click
// admission on: each burst is counted whole, burst after burst (nothing of one burst is held against the
// next). `npm test` runs bursts of 100 and 300 (bursts.test.ts); `npm run test:chaos` the 1,000
// (bursts.chaos.test.ts), whose thousand sign-ups take most of a minute on a loaded machine.
// The interval is long here so a burst drains within it on a slow machine too: the rule promises that
// a queue whose waits fall back under the target within the interval is never shed (docs/performance.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness, type TestUser } from './support.js';

async function burstOf(h: Harness, players: TestUser[]) {
  const before = (await h.state()).globalClicks;
  const answers = await Promise.all(players.map((p) => h.click(p)));
  const statuses = answers.map((a) => a.statusCode);
  const ordinals = answers.filter((a) => a.statusCode === 200).map((a) => a.json().globalClicks as number);
  return {
    refused: statuses.filter((s) => s !== 200).length,
    counted: (await h.state()).globalClicks - before,
    distinctOrdinals: new Set(ordinals).size,
  };
}

export const burstSuite = (sizes: readonly number[]) =>
  describe('bursts of distinct players', () => {
    let h: Harness;
    let players: TestUser[];

    beforeAll(async () => {
      h = await startGame({
        name: 'bursts',
        env: {
          ROUND_TARGET: '1000000',
          CLICK_QUEUE_MAX: '2000',
          CLICK_QUEUE_IN_FLIGHT: '64',
          CLICK_QUEUE_INTERVAL_MS: '30000',
        },
      });
      players = await h.registerUsers(Math.max(...sizes));
      // Sign-ups by event take their time on a busy machine.
    }, 300_000);
    afterAll(async () => h?.close());

    for (const size of sizes)
      it(`counts every press of ${size} players at once, three times over, refusing none`, async () => {
        for (let attempt = 0; attempt < 3; attempt++) {
          expect(await burstOf(h, players.slice(0, size))).toEqual({
            refused: 0,
            counted: size,
            distinctOrdinals: size,
          });
        }
      });
  });
