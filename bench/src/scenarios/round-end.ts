// Figure 5: a round ends while clients watch and clicks keep coming. The game is restarted with a target a
// few thousand clicks ahead; the time runs from the winning click's acknowledgement to each client's
// `winner` event, and exactly one winner must be recorded.
import type { BenchSystem } from '../bench-system.js';
import type { HttpLoadResult } from '../http-load.js';
import type { BenchSettings } from '../settings.js';
import { Histogram, type HistogramData } from '../stats.js';
import type { Worker } from '../workers.js';
import { connectFleet } from './sockets.js';

export interface RoundEndResult {
  sockets: number;
  roundTarget: number;
  /** Answers that said `won: true`. */
  winningAnswers: number;
  /** Winners rows added in the round (GET /api/winners). */
  winners: number;
  received: number;
  duplicates: number;
  p50Ms: number | null;
  p99Ms: number | null;
  maxMs: number | null;
  beforeAck: number;
  clicksPerSecond: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function getJson(url: string): Promise<any> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`${url} answered ${response.status}`);
  return response.json();
}

export async function measureRoundEnd(
  bs: BenchSystem,
  settings: BenchSettings,
  loader: Worker,
  clickRate: number,
  log: (line: string) => void,
): Promise<RoundEndResult> {
  const state = await getJson(`${bs.gatewayUrl}/api/game/state`);
  const roundTarget = Number(state.gameState.globalClicks) + settings.roundEndClicks;
  const winnersBefore = (await getJson(`${bs.gatewayUrl}/api/winners?limit=200`)).winners.length as number;
  log(`[bench] round end: restarting the game with ROUND_TARGET=${roundTarget}`);
  await bs.restartGame({ ROUND_TARGET: String(roundTarget) });

  const fleet = await connectFleet(bs, settings, settings.roundEndSockets);
  try {
    log(`[bench]   ${fleet.connected} clients watching`);
    await sleep(1000);
    await fleet.call('resetWinners');
    // The load stops at the winning answer, so the duration is only a ceiling. Watching clients slow the
    // machine and fewer clicks than asked may be accepted: the ceiling is five times the expected time.
    const expectedS = settings.roundEndClicks / Math.max(1, clickRate);
    const durationS = Math.ceil(Math.max(expectedS * 5, 60) + 10);
    const load = await loader.call<HttpLoadResult>(
      'run',
      {
        url: bs.gatewayUrl,
        path: '/api/game/click',
        method: 'POST',
        connections: settings.clickConnectionsAtHalfRate,
        durationS,
        tokens: bs.users.map((u) => u.token),
        overallRate: Math.max(1, Math.round(clickRate)),
        stopOnWin: true,
      },
      (durationS + 60) * 1000,
    );
    const win = load.wins[0];
    if (!win)
      throw new Error(
        `no click won the round (target ${roundTarget}); statuses ${JSON.stringify(load.statusCounts)}`,
      );
    // Every client has had time to hear of it.
    await sleep(3000);
    const parts = await fleet.call<{
      sockets: number;
      received: number;
      duplicates: number;
      histogram: HistogramData;
    }>('winners', { since: win.at });
    const histogram = new Histogram();
    let received = 0;
    let duplicates = 0;
    for (const part of parts) {
      histogram.merge(part.histogram);
      received += part.received;
      duplicates += part.duplicates;
    }
    const winnersAfter = (await getJson(`${bs.gatewayUrl}/api/winners?limit=200`)).winners.length as number;
    const result: RoundEndResult = {
      sockets: fleet.connected,
      roundTarget,
      winningAnswers: load.wins.length,
      winners: winnersAfter - winnersBefore,
      received,
      duplicates,
      p50Ms: histogram.percentile(50) ?? null,
      p99Ms: histogram.percentile(99) ?? null,
      maxMs: histogram.count > 0 ? histogram.toJSON().maxMs : null,
      beforeAck: histogram.toJSON().negative,
      clicksPerSecond: load.okPerSecond,
    };
    log(
      `[bench]   winning click ${win.ordinal}; ${received}/${fleet.connected} clients got the winner (duplicates ${duplicates}); ` +
        `p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms; winners recorded ${result.winners}, winning answers ${result.winningAnswers}`,
    );
    return result;
  } finally {
    await fleet.close();
  }
}
