// Bursts of distinct players at the front door, with the gateway's defaults (click admission and the
// early-retry rule on): 100, 300 and 1,000 players pressing once each at the same moment, three times
// over, all reach the game once and are answered, none refused. A game that answers at its own pace
// (a stand-in that serves a few clicks at a time) is no overload while its queue drains within the
// interval. The interval is long here so the bursts drain within it on a slow machine too.
import { resetRedis } from '@omc/testkit';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  clickPathEnv,
  jwtShaped,
  startGateway,
  startStandIn,
  type Gateway,
  type StandIn,
} from './support.js';

describe('bursts of distinct players at the gateway', () => {
  let game: StandIn;
  let gateway: Gateway;
  let pool: Pool;
  let reached = 0;
  const players = Array.from({ length: 1000 }, (_, i) => `Bearer ${jwtShaped(`player-${i}`)}`);

  beforeAll(async () => {
    await resetRedis();
    game = await startStandIn('game', (app) => {
      app.post('/api/game/click', async () => {
        reached += 1;
        const ordinal = reached;
        // The game takes its time: a macrotask per click, so clicks pile up in flight.
        await new Promise((resolve) => setTimeout(resolve, 1));
        return { globalClicks: ordinal, freeClicks: 1, round: 1 };
      });
    });
    gateway = await startGateway(clickPathEnv(game.url, { CLICK_INTERVAL_MS: '30000' }));
    pool = new Pool(gateway.url, { connections: 1000 });
  });

  afterAll(async () => {
    await pool?.close();
    await gateway?.close();
    await game?.close();
  });

  const press = async (authorization: string) => {
    const r = await pool.request({
      path: '/api/game/click',
      method: 'POST',
      headers: { authorization, 'content-type': 'application/json' },
      body: '{}',
    });
    await r.body.dump();
    return r.statusCode;
  };

  for (const size of [100, 300, 1000])
    it(`lets ${size} players pressing at once through to the game, three times over, refusing none`, async () => {
      for (let attempt = 0; attempt < 3; attempt++) {
        const before = reached;
        const statuses = await Promise.all(players.slice(0, size).map(press));
        expect(statuses.filter((s) => s !== 200)).toEqual([]);
        expect(reached - before).toBe(size);
      }
    });
});
