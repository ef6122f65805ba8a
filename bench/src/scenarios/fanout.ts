// Figures 3 and 4, at each client count: click to screen (acknowledgement -> first gameStateUpdate that
// contains the click) while clicks arrive at half the measured maximum rate, and what the fan-out costs
// the realtime process: CPU per delivered message, memory per socket, bytes per second per socket.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchSystem } from '../bench-system.js';
import type { OpenLoopResult } from '../open-loop.js';
import { cpuSeconds, rssBytes } from '../proc.js';
import { bucketPercentile, readHistogram, type Buckets } from '../prom.js';
import type { BenchSettings } from '../settings.js';
import { Histogram, median, ratio, sampleEvenly } from '../stats.js';
import { startWorker, type Worker } from '../workers.js';
import { connectFleet, type Fleet } from './sockets.js';

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

export interface FanoutBaseline {
  connected: number;
  messagesPerSecond: number;
  cpuMicrosPerMessage: number | null;
}

const MAX_ACKS_JOINED = 2000;

const msOf = (seconds: number | null) => (seconds === null ? null : seconds * 1000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The processes whose CPU is accounted for, by group: the services, Redis and NATS, the load generators. */
function accountedProcesses(bs: BenchSystem, fleet: Fleet, clicker: Worker): Record<string, number[]> {
  const groups: Record<string, number[]> = {};
  for (const p of bs.system.processes) (groups[p.name] ??= []).push(p.pid);
  const { redis, nats } = bs.system.infra.pids;
  if (redis) groups.redis = [redis];
  if (nats) groups.nats = [nats];
  groups['socket clients'] = fleet.workers.map((w) => w.pid);
  groups['click load'] = [clicker.pid];
  return groups;
}

function cpuByGroup(groups: Record<string, number[]>): Record<string, number> {
  const seconds: Record<string, number> = {};
  for (const [name, pids] of Object.entries(groups))
    seconds[name] = pids.reduce((sum, pid) => {
      try {
        return sum + cpuSeconds(pid);
      } catch {
        return sum; // gone
      }
    }, 0);
  return seconds;
}

/** Realtime's histogram of its tick writes' wall time, or null when its /metrics cannot be read. */
async function tickWrites(url: string): Promise<Buckets | null> {
  try {
    const response = await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(5000) });
    return readHistogram(await response.text(), 'realtime_tick_write_seconds');
  } catch {
    return null;
  }
}

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
 * The baseline of the CPU per message: `count` sockets connected straight to a bare `ws` server
 * (bench/src/trivial-broadcaster.ts) that sends each of them one state frame per tick, and the CPU
 * that process used over the messages the sockets received.
 */
async function measureBaseline(
  bs: BenchSystem,
  settings: BenchSettings,
  count: number,
  log: (line: string) => void,
): Promise<FanoutBaseline> {
  const broadcaster = startWorker('trivial-broadcaster');
  try {
    const { url } = await broadcaster.call<{ url: string }>('listen', { hz: settings.broadcastHz });
    const fleet = await connectFleet(bs, settings, count, url);
    try {
      await sleep(1000);
      await fleet.mark();
      const cpuBefore = cpuSeconds(broadcaster.pid);
      await sleep(settings.fanoutBaselineS * 1000);
      const cpu = cpuSeconds(broadcaster.pid) - cpuBefore;
      const { total } = await fleet.measure();
      const baseline: FanoutBaseline = {
        connected: fleet.connected,
        messagesPerSecond: total.messages / (total.durationMs / 1000),
        cpuMicrosPerMessage: ratio(cpu * 1e6, total.messages),
      };
      log(
        `[bench]   baseline (bare ws, ${fleet.connected} sockets): ${Math.round(baseline.messagesPerSecond)} msg/s, ${baseline.cpuMicrosPerMessage?.toFixed(2)} µs/msg`,
      );
      return baseline;
    } finally {
      await fleet.close();
    }
  } finally {
    await broadcaster.call('close', undefined, 10_000).catch(() => undefined);
    await broadcaster.stop();
  }
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
  // A fresh realtime process for each count: its memory before the sockets is a clean baseline, and no
  // garbage from the previous count is collected (or not) in the middle of this one.
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

    await fleet.mark();
    const groups = accountedProcesses(bs, fleet, clicker);
    const groupsBefore = cpuByGroup(groups);
    const wallBefore = Date.now();
    // Realtime's /metrics is read outside the window whose CPU is counted.
    const writesBefore = await tickWrites(realtime.internalUrl);
    const cpuBefore = cpuSeconds(realtime.pid);
    // Clicks on a fixed schedule (the open-loop generator), not in a burst at the start of each second
    // (autocannon's rate, which left most ticks of a second with no change to send).
    const load = await clicker.call<OpenLoopResult>(
      'run',
      {
        url: bs.gatewayUrl,
        tokens: bs.users.map((u) => u.token),
        rate: Math.max(1, Math.round(clickRate)),
        durationS: settings.fanoutDurationS,
        connections: settings.openLoop.connections,
        timeoutMs: 10_000,
      },
      (settings.fanoutDurationS * 4 + 70) * 1000,
    );
    const answers = Histogram.fromJSON(load.acceptedLatency);
    // The last tick after the last click.
    await sleep(Math.ceil(1000 / settings.broadcastHz) + 200);
    const cpuAfter = cpuSeconds(realtime.pid);
    const writesAfter = await tickWrites(realtime.internalUrl);
    const groupsAfter = cpuByGroup(groups);
    const wallSeconds = (Date.now() - wallBefore) / 1000;
    const coresByProcess: Record<string, number> = {};
    for (const name of Object.keys(groups))
      coresByProcess[name] =
        Math.round(((groupsAfter[name]! - groupsBefore[name]!) / wallSeconds) * 100) / 100;

    const order = load
      .acks!.ordinals.map((_, i) => i)
      .sort((a, b) => load.acks.ordinals[a]! - load.acks.ordinals[b]!);
    const picked = sampleEvenly(order, MAX_ACKS_JOINED);
    // Click to screen counts from each click's answer, as before.
    const acks = {
      ordinals: picked.map((i) => load.acks.ordinals[i]!),
      times: picked.map((i) => load.acks.answered[i]!),
    };
    const { total, histogram } = await fleet.measure(acks);

    const seconds = total.durationMs / 1000;
    const cpu = cpuAfter - cpuBefore;
    point = {
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
      memoryPerSocketBytes: ratio(rssWith - rssBefore, fleet.connected),
      realtimeRssBytes: rssWith,
      bytesPerSocketPerSecond: ratio(total.bytes / seconds, total.connectedNow),
      bytesExact: total.bytesExact,
      coresByProcess,
      baseline: null,
      cpuRatioToBaseline: null,
    };
    log(
      `[bench]   ${Math.round(point.clicksPerSecond)} clicks/s (${Math.round(point.clicksRefusedPerSecond)}/s refused, answers p99 ${point.clickAnswerP99Ms} ms); click to screen p50 ${point.clickToScreen.p50Ms} ms, p99 ${point.clickToScreen.p99Ms} ms ` +
        `(${point.clickToScreen.samples} samples, ${point.clickToScreen.missed} missed); tick seen ${point.observedTickMs?.toFixed(1)} ms; tick writes take p50 ≤ ${point.tickWriteMs?.p50 ?? '?'} / p99 ≤ ${point.tickWriteMs?.p99 ?? '?'} ms; ` +
        `${Math.round(point.messagesPerSecond)} msg/s; realtime CPU ${(point.realtimeCpuShare * 100).toFixed(0)}% = ${point.cpuMicrosPerMessage?.toFixed(2)} µs/msg; ` +
        `${((point.memoryPerSocketBytes ?? 0) / 1024).toFixed(1)} KiB/socket; ${point.bytesPerSocketPerSecond?.toFixed(0)} B/s/socket`,
    );
    log(
      `[bench]   cores used: ${Object.entries(coresByProcess)
        .map(([name, cores]) => `${name} ${cores}`)
        .join(', ')}`,
    );
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
