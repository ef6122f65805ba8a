// Mixed traffic for a while with nothing broken on purpose: players clicking, buying, winning and
// collecting, sockets connecting and dropping; every promise checked at the end. RELIABILITY_LOAD_SECONDS
// sets the length (20 s by default for the test command; a release runs it for minutes).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { figures, invariant, reportFigures, violations } from '../src/context.js';
import { checkAll } from '../src/invariants.js';
import { sleep } from '../src/http.js';
import { castPlayers, MixedLoad, type Cast } from '../src/load.js';

const seconds = Number(process.env.RELIABILITY_LOAD_SECONDS ?? 20);
const players = Number(process.env.RELIABILITY_LOAD_PLAYERS ?? 6);

let cast: Cast;

beforeAll(async () => {
  cast = await castPlayers(players);
});
afterAll(reportFigures);

it(
  `keeps every promise under ${seconds} s of mixed traffic`,
  { timeout: (seconds + 180) * 1000 },
  async () => {
    const load = new MixedLoad(cast, { players, sockets: 6, pauseMs: 25 });
    load.start();
    try {
      await sleep(seconds * 1000);
    } finally {
      await load.stop();
    }
    figures.loadSeconds += seconds;
    const unanswered =
      load.clicks.filter((c) => c.status === 0 || c.status >= 500).length +
      load.purchases.filter((p) => p.status === 0 || p.status >= 500).length;
    // On a busy machine a request may time out; reported, and each one is settled by the checks below.
    figures.unansweredInLoad += unanswered;
    const connected = load.watchers.filter((w) => w.socket.connected).length;
    invariant(
      'mixed load: the sockets open at the end are connected and heard the game',
      connected === load.watchers.length && load.watchers.every((w) => w.states.length > 0),
      connected,
    );
    load.closeSockets();
    invariant(
      'mixed load: rounds were won',
      load.clicks.some((c) => c.won),
    );
    invariant(
      'mixed load: purchases succeeded',
      load.purchases.some((p) => p.success),
    );
    await checkAll(cast, load, { scenario: 'mixed load' });
    expect(violations()).toEqual([]);
  },
);
