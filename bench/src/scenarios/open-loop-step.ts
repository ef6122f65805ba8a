// One step of the open loop: clicks at one rate on a fixed schedule for the step's duration while the
// sockets listen, and what came of them: accepted and refused, how fast, click to screen on the timed
// sockets, whether the counter moved by exactly the accepted clicks, and the CPU each process spent.
import { setTimeout as sleep } from 'node:timers/promises';
import type { BenchSystem } from '../bench-system.js';
import type { OpenLoopResult } from '../open-loop.js';
import { cpuSeconds } from '../proc.js';
import type { BenchSettings } from '../settings.js';
import { Histogram, round, sampleEvenly } from '../stats.js';
import type { Worker } from '../workers.js';
import type { Fleet, MeasureOutcome } from './sockets.js';

export interface OpenLoopPoint {
  rate: number;
  offered: number;
  acceptedPerSecond: number;
  refusedPerSecond: number;
  refused: number;
  failed: number;
  otherStatus: Record<string, number>;
  /** Scheduled time to the answer. */
  acceptedAnswerP99Ms: number | null;
  refusalP99Ms: number | null;
  refusalsWithRetryAfter: number;
  refusalsWithMessage: number;
  /** Scheduled time to the first timed screen showing the click, accepted clicks only. */
  clickToScreenP50Ms: number | null;
  clickToScreenP99Ms: number | null;
  /** Share of offered clicks seen on the timed screens within 2 s of their scheduled time. */
  seenWithin2s: number;
  /**
   * The counter's move during the step minus the accepted clicks: 0 when nothing was lost or counted
   * twice; a click that got no answer (`failed`) may or may not have counted, so 0..failed is sound.
   */
  counterDrift: number;
  duplicateOrdinals: number;
  sendLagP99Ms: number;
  /** CPU per accepted click (µs) of each click-path process, and realtime's per delivered message. */
  cpuMicrosPerClick: Record<string, number | null>;
  realtimeCpuMicrosPerMessage: number | null;
  /** Cores each process used during the step. */
  cores: Record<string, number>;
  held: boolean;
}

/** A step holds when click to screen's p99 is within the bound and the share is seen within the time. */
export const OPEN_LOOP_P99_BOUND_MS = 150;
export const OPEN_LOOP_SEEN_WITHIN_MS = 2000;
export const OPEN_LOOP_SEEN_SHARE = 0.99;
const MAX_ACKS_JOINED = 4000;

export async function globalClicks(gatewayUrl: string): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    try {
      const response = await fetch(`${gatewayUrl}/api/game/state`, { signal: AbortSignal.timeout(10_000) });
      if (response.ok)
        return ((await response.json()) as { gameState: { globalClicks: number } }).gameState.globalClicks;
      if (attempt >= 20) throw new Error(`GET /api/game/state answered ${response.status}`);
    } catch (error) {
      if (attempt >= 20) throw error;
    }
    await sleep(250);
  }
}

/**
 * The counter once it stops moving (two readings a second apart agree, within 30 s): a click the
 * generator gave up on may still be counted after the step, and must not be charged to the next one.
 */
export async function settledClicks(gatewayUrl: string): Promise<number> {
  let last = await globalClicks(gatewayUrl);
  for (let i = 0; i < 30; i++) {
    await sleep(1000);
    const now = await globalClicks(gatewayUrl);
    if (now === last) return now;
    last = now;
  }
  return last;
}

/** What every step of one sweep shares: the system, the listening sockets and the click generator. */
export interface StepRig {
  bs: BenchSystem;
  o: BenchSettings['openLoop'];
  fleet: Fleet;
  clicker: Worker;
  tokens: string[];
  log: (line: string) => void;
}

/** The processes whose CPU a step reads: the click path, realtime, and the load's own processes. */
function stepPids({ bs, clicker, fleet }: StepRig): Record<string, number | undefined> {
  return {
    gateway: bs.process('gateway').pid,
    game: bs.process('game').pid,
    realtime: bs.process('realtime').pid,
    redis: bs.system.infra.pids.redis,
    nats: bs.system.infra.pids.nats,
    // The load's own processes share the cores: the click generator and the socket clients.
    generator: clicker.pid,
    sockets: fleet.workers[0]?.pid,
  };
}

/** CPU seconds so far of each process (NaN for one missing or gone). */
function cpuNow(pids: Record<string, number | undefined>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(pids).map(([name, pid]) => {
      try {
        return [name, pid ? cpuSeconds(pid) : Number.NaN];
      } catch {
        return [name, Number.NaN];
      }
    }),
  ) as Record<string, number>;
}

/** An even sample of the answered clicks, in ordinal order, timed from each click's scheduled time. */
function scheduledAcks(result: OpenLoopResult): { ordinals: number[]; times: number[] } {
  const order = result.acks.ordinals
    .map((_, i) => i)
    .sort((a, b) => result.acks.ordinals[a]! - result.acks.ordinals[b]!);
  const picked = sampleEvenly(order, MAX_ACKS_JOINED);
  return {
    ordinals: picked.map((i) => result.acks.ordinals[i]!),
    times: picked.map((i) => result.acks.scheduled[i]!),
  };
}

/** CPU of the step: each process's seconds before and after, and the wall time between. */
interface StepCpu {
  before: Record<string, number>;
  after: Record<string, number>;
  wallSeconds: number;
}

/** The step's figures, from the generator's result, what the timed sockets saw and the counter's move. */
function stepPoint(
  rate: number,
  result: OpenLoopResult,
  seen: { total: MeasureOutcome; histogram?: Histogram },
  counterMove: number,
  cpu: StepCpu,
): OpenLoopPoint {
  const { total } = seen;
  const h = seen.histogram ?? new Histogram();
  // Pairs (click, timed screen) seen within 2 s, over the pairs every offered click should have made.
  const pairsSampled = total.matched + total.missed;
  const acceptedShare = result.offered > 0 ? result.accepted / result.offered : 0;
  const seenShare = pairsSampled > 0 ? h.countAtMost(OPEN_LOOP_SEEN_WITHIN_MS) / pairsSampled : 0;
  const seenWithin2s = seenShare * acceptedShare;
  const p99 = h.percentile(99) ?? null;
  const accepted = Histogram.fromJSON(result.acceptedLatency);
  const refusals = Histogram.fromJSON(result.refusalLatency);
  const spent = (name: string) => cpu.after[name]! - cpu.before[name]!;
  return {
    rate,
    offered: result.offered,
    acceptedPerSecond: result.accepted / result.durationS,
    refusedPerSecond: result.refused / result.durationS,
    refused: result.refused,
    failed: result.failed,
    otherStatus: result.otherStatus,
    acceptedAnswerP99Ms: accepted.percentile(99) ?? null,
    refusalP99Ms: refusals.percentile(99) ?? null,
    refusalsWithRetryAfter: result.refusalsWithRetryAfter,
    refusalsWithMessage: result.refusalsWithMessage,
    clickToScreenP50Ms: h.percentile(50) ?? null,
    clickToScreenP99Ms: p99,
    seenWithin2s,
    counterDrift: counterMove - result.accepted,
    duplicateOrdinals: result.duplicateOrdinals,
    sendLagP99Ms: result.sendLagP99Ms,
    cpuMicrosPerClick: Object.fromEntries(
      ['gateway', 'game', 'redis'].map((name) => [
        name,
        result.accepted > 0 && Number.isFinite(spent(name)) ? (spent(name) * 1e6) / result.accepted : null,
      ]),
    ),
    realtimeCpuMicrosPerMessage: total.messages > 0 ? (spent('realtime') * 1e6) / total.messages : null,
    cores: Object.fromEntries(
      Object.keys(cpu.before).map((name) => [name, Math.round((spent(name) / cpu.wallSeconds) * 100) / 100]),
    ),
    held:
      p99 !== null &&
      p99 <= OPEN_LOOP_P99_BOUND_MS &&
      seenWithin2s >= OPEN_LOOP_SEEN_SHARE &&
      total.connectedNow > 0,
  };
}

function logStep(point: OpenLoopPoint, log: (line: string) => void): void {
  log(
    `[bench]   open loop ${point.rate}/s: accepted ${Math.round(point.acceptedPerSecond)}/s, refused ${Math.round(point.refusedPerSecond)}/s` +
      `${point.failed ? `, ${point.failed} unanswered` : ''}; click to screen p50 ${round(point.clickToScreenP50Ms)} ms, p99 ${round(point.clickToScreenP99Ms)} ms; ` +
      `${(point.seenWithin2s * 100).toFixed(1)} % seen within 2 s; answers p99 ${round(point.acceptedAnswerP99Ms)} ms, refusals p99 ${round(point.refusalP99Ms) ?? 'n/a'} ms; ` +
      `counter drift ${point.counterDrift}, duplicate ordinals ${point.duplicateOrdinals}; generator lag p99 ${point.sendLagP99Ms} ms; ` +
      `cores ${Object.entries(point.cores)
        .map(([n, c]) => `${n} ${c}`)
        .join(', ')} -> ${point.held ? 'held' : 'did not hold'}`,
  );
}

/** One step at `rate` clicks a second (rounded, at least 1), then the step's rest. */
export async function openLoopStep(rig: StepRig, rate: number): Promise<OpenLoopPoint> {
  const { bs, o, fleet, clicker } = rig;
  rate = Math.max(1, Math.round(rate));
  const before = await settledClicks(bs.gatewayUrl);
  await fleet.mark(o.timed);
  const pids = stepPids(rig);
  const cpuBefore = cpuNow(pids);
  const wallBefore = Date.now();
  const result = await clicker.call<OpenLoopResult>(
    'run',
    {
      url: bs.gatewayUrl,
      tokens: rig.tokens,
      rate,
      durationS: o.stepDurationS,
      connections: o.connections,
      timeoutMs: o.clickTimeoutMs,
    },
    (o.stepDurationS * 4 + o.clickTimeoutMs / 1000 + 60) * 1000,
  );
  const cpu: StepCpu = {
    before: cpuBefore,
    after: cpuNow(pids),
    wallSeconds: (Date.now() - wallBefore) / 1000,
  };
  // Every answered click's state reaches the screens within a tick or two; wait past the 2 s window.
  await sleep(OPEN_LOOP_SEEN_WITHIN_MS + 500);
  const after = await settledClicks(bs.gatewayUrl);
  const seen = await fleet.measure(scheduledAcks(result));
  const point = stepPoint(rate, result, seen, after - before, cpu);
  logStep(point, rig.log);
  await sleep(o.restS * 1000);
  return point;
}
