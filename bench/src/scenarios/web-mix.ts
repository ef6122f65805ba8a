// Players as the web app behaves: the clicks of a lean client alone, then the same clicks with the
// requests the web app sends beside them (the mix the browser test records: tests/e2e
// traffic.chaos.test.ts), then with the mix the web app had before a click's answer carried the balance
// (2.38 API requests per click, the rest profile reads). For each, the CPU every process of the cluster
// spent per accepted click, and the players one core serves at a player's pace.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchSystem } from '../bench-system.js';
import type { HttpLoadOptions, HttpLoadResult } from '../http-load.js';
import { startWorker, type Worker } from '../workers.js';
import { clusterCpu, spent, type ClusterCpu } from './web-mix-cpu.js';

/** A player's pace in the recorded session: two presses a second. */
export const PRESSES_PER_SECOND = 2;
/** The web app before: 8 clicks and 11 profile reads (2.38 requests per click). */
const BEFORE_PROFILE_READS_PER_CLICK = 11 / 8;
const PASSES = 2;

export interface MixPoint {
  name: string;
  /** Profile reads per accepted click, as delivered. */
  profileReadsPerClick: number;
  clicks: number;
  profileReads: number;
  refused: number;
  durationS: number;
  cpuSeconds: Record<string, number>;
  clusterCpuMsPerClick: number;
  playersPerCore: number;
}

export interface WebMixResult {
  clickRate: number;
  recorded: { source: string; requestsPerClick: number; profileReadsPerMinute: number | null };
  points: MixPoint[];
  /** The lean runs plus the measured cost of a profile read times the reads per click of each mix. */
  derived: {
    cpuPerProfileReadMs: number;
    beforeCpuMsPerClick: number;
    beforePlayersPerCore: number;
    recordedCpuMsPerClick: number;
    recordedPlayersPerCore: number;
  };
}

/** The steady-play mix the browser test wrote last, if it ran on this machine. */
function recordedMix(root: string): WebMixResult['recorded'] {
  const file = join(root, 'test-artifacts', 'e2e', 'traffic-mix.json');
  if (existsSync(file)) {
    const mix = JSON.parse(readFileSync(file, 'utf8')) as {
      steadyPlay: { requestsPerClick: number; profileReadsPerMinute: number };
    };
    return {
      source: 'test-artifacts/e2e/traffic-mix.json',
      requestsPerClick: mix.steadyPlay.requestsPerClick,
      profileReadsPerMinute: mix.steadyPlay.profileReadsPerMinute,
    };
  }
  // The figure the browser test asserts at most.
  return {
    source: 'the browser test bound (no recording found)',
    requestsPerClick: 1.05,
    profileReadsPerMinute: null,
  };
}

interface Mix {
  name: string;
  profileReadsPerClick: number;
}

/** What the runs of one mix added up to. */
interface MixTotal {
  clicks: number;
  reads: number;
  refused: number;
  durationS: number;
  cpu: Record<string, number>;
}

interface MixOptions {
  clickRate: number;
  durationS: number;
}

/** The lean client, the web app as the recording says it behaves, and the web app before. */
function mixesOf(recorded: WebMixResult['recorded']): Mix[] {
  return [
    { name: 'lean client (clicks only)', profileReadsPerClick: 0 },
    {
      name: 'web app as it behaves (recorded mix)',
      profileReadsPerClick: Math.max(0, recorded.requestsPerClick - 1),
    },
    {
      name: 'web app before (2.38 requests per click)',
      profileReadsPerClick: BEFORE_PROFILE_READS_PER_CLICK,
    },
  ];
}

/** Runs every mix in alternation, PASSES times, so a change in the machine's other load falls on all of them. */
async function runMixes(
  bs: BenchSystem,
  loader: Worker,
  options: MixOptions,
  mixes: Mix[],
): Promise<MixTotal[]> {
  const reader = startWorker('http-load');
  const tokens = bs.users.map((u) => u.token);
  const load = (path: string, method: 'GET' | 'POST', rate: number): HttpLoadOptions => ({
    url: bs.gatewayUrl,
    path,
    method,
    // Enough connections that the rate, not the answers' latency, sets the pace.
    connections: 16,
    durationS: options.durationS,
    tokens,
    overallRate: Math.max(1, Math.round(rate)),
  });
  const cpuNow = clusterCpu(bs);
  const totals = mixes.map((): MixTotal => ({ clicks: 0, reads: 0, refused: 0, durationS: 0, cpu: {} }));
  try {
    for (let pass = 0; pass < PASSES; pass++) {
      for (const [i, mix] of mixes.entries()) {
        const before = cpuNow();
        const started = Date.now();
        const readRate = options.clickRate * mix.profileReadsPerClick;
        const [clicks, reads] = await Promise.all([
          loader.call<HttpLoadResult>(
            'run',
            load('/api/game/click', 'POST', options.clickRate),
            (options.durationS + 60) * 1000,
          ),
          readRate >= 1
            ? reader.call<HttpLoadResult>(
                'run',
                load('/api/user/profile', 'GET', readRate),
                (options.durationS + 60) * 1000,
              )
            : Promise.resolve(undefined),
        ]);
        addRun(totals[i]!, before, cpuNow(), clicks, reads, started);
      }
    }
  } finally {
    await reader.stop();
  }
  return totals;
}

function addRun(
  total: MixTotal,
  before: ClusterCpu,
  after: ClusterCpu,
  clicks: HttpLoadResult,
  reads: HttpLoadResult | undefined,
  started: number,
): void {
  for (const k of Object.keys(after)) total.cpu[k] = (total.cpu[k] ?? 0) + spent(before[k]!, after[k]!);
  total.clicks += clicks.ok;
  total.reads += reads?.ok ?? 0;
  total.refused += clicks.non2xx + (reads?.non2xx ?? 0);
  total.durationS += (Date.now() - started) / 1000;
}

function mixPoint(mix: Mix, total: MixTotal, log: (line: string) => void): MixPoint {
  const cpu = Object.values(total.cpu).reduce((sum, s) => sum + s, 0);
  const perClickS = total.clicks > 0 ? cpu / total.clicks : Number.NaN;
  const point: MixPoint = {
    name: mix.name,
    profileReadsPerClick: total.clicks > 0 ? total.reads / total.clicks : 0,
    clicks: total.clicks,
    profileReads: total.reads,
    refused: total.refused,
    durationS: total.durationS,
    cpuSeconds: total.cpu,
    clusterCpuMsPerClick: perClickS * 1000,
    playersPerCore: 1 / (perClickS * PRESSES_PER_SECOND),
  };
  log(
    `[bench] web mix: ${mix.name}: ${point.clicks} clicks, ${point.profileReads} profile reads; ` +
      `cluster CPU ${point.clusterCpuMsPerClick.toFixed(3)} ms per click, ${Math.round(point.playersPerCore)} players per core`,
  );
  return point;
}

/**
 * A profile read's cost, from the runs with reads against the lean runs at the same click rate; the
 * web app before asked 11/8 of them per click, more than a loaded machine delivers in the run.
 */
function derivedCosts(
  points: MixPoint[],
  recorded: WebMixResult['recorded'],
  log: (line: string) => void,
): WebMixResult['derived'] {
  const lean = points[0]!;
  const withReads = points[2]!;
  const leanCpu = lean.clusterCpuMsPerClick;
  const cpuPerReadMs =
    withReads.profileReads > 0
      ? (withReads.clusterCpuMsPerClick * withReads.clicks - leanCpu * withReads.clicks) /
        withReads.profileReads
      : Number.NaN;
  const beforeCpuMsPerClick = leanCpu + BEFORE_PROFILE_READS_PER_CLICK * cpuPerReadMs;
  const recordedReads = Math.max(0, recorded.requestsPerClick - 1);
  const recordedCpuMsPerClick = leanCpu + recordedReads * cpuPerReadMs;
  const derived = {
    cpuPerProfileReadMs: cpuPerReadMs,
    beforeCpuMsPerClick,
    beforePlayersPerCore: 1000 / (beforeCpuMsPerClick * PRESSES_PER_SECOND),
    recordedCpuMsPerClick,
    recordedPlayersPerCore: 1000 / (recordedCpuMsPerClick * PRESSES_PER_SECOND),
  };
  log(
    `[bench] web mix: a profile read costs the cluster ${cpuPerReadMs.toFixed(2)} ms of CPU; at 11 reads per 8 clicks ` +
      `a click cost ${beforeCpuMsPerClick.toFixed(2)} ms (${Math.round(derived.beforePlayersPerCore)} players per core), ` +
      `at the recorded mix ${recordedCpuMsPerClick.toFixed(2)} ms (${Math.round(derived.recordedPlayersPerCore)})`,
  );
  return derived;
}

export async function measureWebMix(
  root: string,
  bs: BenchSystem,
  loader: Worker,
  options: MixOptions,
  log: (line: string) => void,
): Promise<WebMixResult> {
  const recorded = recordedMix(root);
  const mixes = mixesOf(recorded);
  const totals = await runMixes(bs, loader, options, mixes);
  const points = mixes.map((mix, i) => mixPoint(mix, totals[i]!, log));
  const derived = derivedCosts(points, recorded, log);
  return { clickRate: options.clickRate, recorded, points, derived };
}
