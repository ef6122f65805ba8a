// Figures 3 and 4, at each client count: click to screen (acknowledgement -> first gameStateUpdate that
// contains the click) while clicks arrive at half the measured maximum rate, and what the fan-out costs
// the realtime process: CPU per delivered message, memory per socket, bytes per second per socket.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchSystem } from '../bench-system.js';
import type { OpenLoopResult } from '../open-loop.js';
import { rssBytes } from '../proc.js';
import { bucketPercentile } from '../prom.js';
import type { BenchSettings } from '../settings.js';
import { stageFigures, type StageFigure } from '../stages.js';
import { Histogram, median, ratio, sampleEvenly } from '../stats.js';
import type { Worker } from '../workers.js';
import { measureBaseline, type FanoutBaseline } from './fanout-baseline.js';
import { clickWhileWatching, type FanoutWindow } from './fanout-window.js';
import { connectFleet, type Fleet, type MeasureOutcome } from './sockets.js';

export type { FanoutBaseline };

export interface FanoutPoint {
  requested: number;
  connected: number;
  failed: number;
  connectErrors: Record<string, number>;
  clicksPerSecond: number;
  clickRateAsked: number;
  /** Clicks answered with a refusal (the click path shedding load), per second, and the answers' p99. */
  clicksRefusedPerSecond: number;
  /** From each click's scheduled time to its answer. */
  clickAnswerP99Ms: number | null;
  clickToScreen: {
    p50Ms: number | null;
    p99Ms: number | null;
    samples: number;
    missed: number;
    beforeAck: number;
  };
  observedTickMs: number | null;
  /** Wall time of realtime's tick writes (first socket to last), p50 and p99 as histogram bucket bounds. */
  tickWriteMs: { p50: number | null; p99: number | null } | null;
  /** Each stage of the latency budget beside its share (stages.ts). */
  stages: StageFigure[];
  messages: number;
  messagesPerSecond: number;
  realtimeCpuSeconds: number;
  cpuMicrosPerMessage: number | null;
  realtimeCpuShare: number;
  memoryPerSocketBytes: number | null;
  realtimeRssBytes: number;
  bytesPerSocketPerSecond: number | null;
  bytesExact: boolean;
  /** Where the machine's CPU went while the clients watched: cores used by each process or group. */
  coresByProcess: Record<string, number>;
  /** The same number of sockets on a bare `ws` server sending one frame per tick, in the same run. */
  baseline: FanoutBaseline | null;
  /** Realtime's CPU per delivered message over the baseline's. */
  cpuRatioToBaseline: number | null;
}

const MAX_ACKS_JOINED = 2000;

const msOf = (seconds: number | null) => (seconds === null ? null : seconds * 1000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Median of a few readings a quarter second apart: one reading may fall just before or after a collection. */
async function steadyRss(pid: number): Promise<number> {
  const readings: number[] = [];
  for (let i = 0; i < 5; i++) {
    readings.push(rssBytes(pid));
    if (i < 4) await sleep(250);
  }
  return median(readings)!;
}

/**
 * A fresh realtime process for each count: its memory before the sockets is a clean baseline, and no
 * garbage from the previous count is collected (or not) in the middle of this one.
 */
async function freshRealtime(bs: BenchSystem, settings: BenchSettings, count: number): Promise<void> {
  await bs.system.stopProcess('realtime');
  if (settings.realtimeCpuProfDir) {
    // A CPU profile of this count's realtime process, written when it stops (before the next count).
    mkdirSync(settings.realtimeCpuProfDir, { recursive: true });
    const env = bs.process('realtime').env;
    env.NODE_OPTIONS = `--import ${fileURLToPath(new URL('../cpu-profile.mjs', import.meta.url))}`;
    env.BENCH_CPU_PROFILE_FILE = join(settings.realtimeCpuProfDir, `realtime-${count}.cpuprofile`);
  }
  await bs.system.restartProcess('realtime');
  await sleep(1000);
}

/** An even sample of the answered clicks, in ordinal order, timed from each click's answer. */
function answeredAcks(load: OpenLoopResult): { ordinals: number[]; times: number[] } {
  const order = load
    .acks!.ordinals.map((_, i) => i)
    .sort((a, b) => load.acks.ordinals[a]! - load.acks.ordinals[b]!);
  const picked = sampleEvenly(order, MAX_ACKS_JOINED);
  // Click to screen counts from each click's answer, as before.
  return {
    ordinals: picked.map((i) => load.acks.ordinals[i]!),
    times: picked.map((i) => load.acks.answered[i]!),
  };
}

/** The figures of one count, from its window, what its sockets received and realtime's memory. */
function fanoutPoint(
  count: number,
  clickRate: number,
  fleet: Fleet,
  window: FanoutWindow,
  received: { total: MeasureOutcome; histogram?: Histogram },
  rss: { before: number; with: number },
  tickMs: number,
): FanoutPoint {
  const { load, writesBefore, writesAfter } = window;
  const { total, histogram } = received;
  const answers = Histogram.fromJSON(load.acceptedLatency);
  const seconds = total.durationMs / 1000;
  const cpu = window.realtimeCpu;
  return {
    requested: count,
    connected: fleet.connected,
    failed: fleet.failed,
    connectErrors: fleet.errors,
    // Over the time the clicks really took: a slow system stretches a step past its schedule.
    clicksPerSecond: load.accepted / Math.max(load.durationS, load.elapsedS),
    clickRateAsked: clickRate,
    clicksRefusedPerSecond: load.refused / Math.max(load.durationS, load.elapsedS),
    clickAnswerP99Ms: answers.percentile(99) ?? null,
    clickToScreen: {
      p50Ms: histogram?.percentile(50) ?? null,
      p99Ms: histogram?.percentile(99) ?? null,
      samples: histogram?.count ?? 0,
      missed: total.missed,
      beforeAck: histogram?.toJSON().negative ?? 0,
    },
    observedTickMs: median(total.gaps) ?? null,
    tickWriteMs:
      writesBefore && writesAfter && writesAfter.size > 0
        ? {
            p50: msOf(bucketPercentile(writesBefore, writesAfter, 50)),
            p99: msOf(bucketPercentile(writesBefore, writesAfter, 99)),
          }
        : null,
    messages: total.messages,
    messagesPerSecond: total.messages / seconds,
    realtimeCpuSeconds: cpu,
    cpuMicrosPerMessage: ratio(cpu * 1e6, total.messages),
    realtimeCpuShare: cpu / seconds,
    memoryPerSocketBytes: ratio(rss.with - rss.before, fleet.connected),
    realtimeRssBytes: rss.with,
    bytesPerSocketPerSecond: ratio(total.bytes / seconds, total.connectedNow),
    bytesExact: total.bytesExact,
    coresByProcess: window.coresByProcess,
    stages: stageFigures(window.stagesBefore, window.stagesAfter, tickMs),
    baseline: null,
    cpuRatioToBaseline: null,
  };
}

function logPoint(point: FanoutPoint, log: (line: string) => void): void {
  log(
    `[bench]   ${Math.round(point.clicksPerSecond)} clicks/s (${Math.round(point.clicksRefusedPerSecond)}/s refused, answers p99 ${point.clickAnswerP99Ms} ms); click to screen p50 ${point.clickToScreen.p50Ms} ms, p99 ${point.clickToScreen.p99Ms} ms ` +
      `(${point.clickToScreen.samples} samples, ${point.clickToScreen.missed} missed); tick seen ${point.observedTickMs?.toFixed(1)} ms; tick writes take p50 ≤ ${point.tickWriteMs?.p50 ?? '?'} / p99 ≤ ${point.tickWriteMs?.p99 ?? '?'} ms; ` +
      `${Math.round(point.messagesPerSecond)} msg/s; realtime CPU ${(point.realtimeCpuShare * 100).toFixed(0)}% = ${point.cpuMicrosPerMessage?.toFixed(2)} µs/msg; ` +
      `${((point.memoryPerSocketBytes ?? 0) / 1024).toFixed(1)} KiB/socket; ${point.bytesPerSocketPerSecond?.toFixed(0)} B/s/socket`,
  );
  log(
    `[bench]   stages p50 / p99 (budget): ${point.stages
      .map((st) => `${st.stage} ${st.p50Ms ?? '?'} / ${st.p99Ms ?? '?'} (${st.budgetMs}) ms`)
      .join('; ')}`,
  );
  log(
    `[bench]   cores used: ${Object.entries(point.coresByProcess)
      .map(([name, cores]) => `${name} ${cores}`)
      .join(', ')}`,
  );
}

export async function measureFanout(
  bs: BenchSystem,
  settings: BenchSettings,
  /** The open-loop generator's worker: clicks on a fixed schedule while the clients watch. */
  clicker: Worker,
  clickRate: number,
  count: number,
  log: (line: string) => void,
): Promise<FanoutPoint> {
  await freshRealtime(bs, settings, count);
  const realtime = bs.process('realtime');
  const rssBefore = await steadyRss(realtime.pid);
  const started = Date.now();
  const fleet = await connectFleet(bs, settings, count);
  let point: FanoutPoint;
  try {
    log(
      `[bench] fan-out ${count}: ${fleet.connected} connected in ${((Date.now() - started) / 1000).toFixed(1)} s${fleet.failed ? `, ${fleet.failed} failed (${JSON.stringify(fleet.errors)})` : ''}`,
    );
    // Let the connection storm's count updates settle before measuring.
    await sleep(2000);
    const rssWith = await steadyRss(realtime.pid);
    const window = await clickWhileWatching(bs, settings, fleet, clicker, clickRate);
    const received = await fleet.measure(answeredAcks(window.load));
    point = fanoutPoint(
      count,
      clickRate,
      fleet,
      window,
      received,
      { before: rssBefore, with: rssWith },
      1000 / settings.broadcastHz,
    );
    logPoint(point, log);
  } finally {
    await fleet.close();
    // Give the server a moment to notice the disconnections before the next count.
    await sleep(1500);
  }
  if (settings.fanoutBaselineS > 0) {
    point.baseline = await measureBaseline(bs, settings, count, log);
    point.cpuRatioToBaseline = ratio(point.cpuMicrosPerMessage, point.baseline.cpuMicrosPerMessage);
  }
  return point;
}
