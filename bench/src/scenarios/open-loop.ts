// The viral day, open loop: clicks on a fixed schedule (latency from each click's scheduled time) while
// 1,000 sockets listen and 50 of them time every state update. A sweep doubles the rate until the p99 of
// click to screen passes 150 ms or fewer than 99 % of the clicks are seen within 2 s, then bisects
// between the last rate that held and the first that did not: that is the sustained rate (the knee).
// Then the overload points, 2× and 3× the knee: what is accepted (goodput) and how fast, what is refused
// and how fast, and whether the counter moved by exactly the accepted clicks (nothing lost or doubled).
import type { BenchSystem } from '../bench-system.js';
import type { OpenLoopResult } from '../open-loop.js';
import { cpuSeconds } from '../proc.js';
import type { BenchSettings } from '../settings.js';
import { Histogram, round, sampleEvenly } from '../stats.js';
import { startWorker } from '../workers.js';
import { connectFleet } from './sockets.js';

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

export interface OpenLoopScenario {
  /**
   * Where the listening sockets connect: straight to realtime, as the Kubernetes Ingress routes
   * `/socket.io` in production, or through the gateway's tunnel, as `npm start` and compose serve them.
   */
  via: 'realtime' | 'gateway';
  listeners: number;
  timed: number;
  sweep: OpenLoopPoint[];
  /** The highest rate that held (p99 ≤ bound and ≥ 99 % seen within 2 s); null if none did. */
  sustainedRate: number | null;
  /** The rate the overload points multiply: the knee, or the lowest rate tried when none held. */
  overloadBase: number;
  overload: { factor: number; point: OpenLoopPoint }[];
}

export const OPEN_LOOP_P99_BOUND_MS = 150;
export const OPEN_LOOP_SEEN_WITHIN_MS = 2000;
export const OPEN_LOOP_SEEN_SHARE = 0.99;
const MAX_ACKS_JOINED = 4000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

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

export async function measureOpenLoop(
  bs: BenchSystem,
  settings: BenchSettings,
  via: OpenLoopScenario['via'],
  log: (line: string) => void,
): Promise<OpenLoopScenario> {
  const o = settings.openLoop;
  const fleet = await connectFleet(
    bs,
    { ...settings, socketsPerWorker: o.listeners },
    o.listeners,
    via === 'gateway' ? bs.gatewayUrl : bs.realtimeUrl,
  );
  const clicker = startWorker('open-loop');
  log(
    `[bench] open loop, sockets ${via === 'gateway' ? "through the gateway's tunnel" : 'straight to realtime'}: ` +
      `${fleet.connected} of ${o.listeners} sockets listening, ${o.timed} timed`,
  );
  const tokens = bs.users.map((u) => u.token);

  const step = async (rate: number): Promise<OpenLoopPoint> => {
    rate = Math.max(1, Math.round(rate));
    const before = await settledClicks(bs.gatewayUrl);
    await fleet.mark(o.timed);
    const pids: Record<string, number | undefined> = {
      gateway: bs.process('gateway').pid,
      game: bs.process('game').pid,
      realtime: bs.process('realtime').pid,
      redis: bs.system.infra.pids.redis,
      nats: bs.system.infra.pids.nats,
      // The load's own processes share the cores: the click generator and the socket clients.
      generator: clicker.pid,
      sockets: fleet.workers[0]?.pid,
    };
    const cpuNow = () =>
      Object.fromEntries(
        Object.entries(pids).map(([name, pid]) => {
          try {
            return [name, pid ? cpuSeconds(pid) : Number.NaN];
          } catch {
            return [name, Number.NaN];
          }
        }),
      ) as Record<string, number>;
    const cpuBefore = cpuNow();
    const wallBefore = Date.now();
    const result = await clicker.call<OpenLoopResult>(
      'run',
      {
        url: bs.gatewayUrl,
        tokens,
        rate,
        durationS: o.stepDurationS,
        connections: o.connections,
        timeoutMs: o.clickTimeoutMs,
      },
      (o.stepDurationS * 4 + o.clickTimeoutMs / 1000 + 60) * 1000,
    );
    const cpuAfter = cpuNow();
    const wallSeconds = (Date.now() - wallBefore) / 1000;
    // Every answered click's state reaches the screens within a tick or two; wait past the 2 s window.
    await sleep(OPEN_LOOP_SEEN_WITHIN_MS + 500);
    const after = await settledClicks(bs.gatewayUrl);
    const order = result.acks.ordinals
      .map((_, i) => i)
      .sort((a, b) => result.acks.ordinals[a]! - result.acks.ordinals[b]!);
    const picked = sampleEvenly(order, MAX_ACKS_JOINED);
    const { histogram, total } = await fleet.measure({
      ordinals: picked.map((i) => result.acks.ordinals[i]!),
      times: picked.map((i) => result.acks.scheduled[i]!),
    });
    const h = histogram ?? new Histogram();
    // Pairs (click, timed screen) seen within 2 s, over the pairs every offered click should have made.
    const pairsSampled = total.matched + total.missed;
    const acceptedShare = result.offered > 0 ? result.accepted / result.offered : 0;
    const seenShare = pairsSampled > 0 ? h.countAtMost(OPEN_LOOP_SEEN_WITHIN_MS) / pairsSampled : 0;
    const seenWithin2s = seenShare * acceptedShare;
    const p99 = h.percentile(99) ?? null;
    const accepted = Histogram.fromJSON(result.acceptedLatency);
    const refusals = Histogram.fromJSON(result.refusalLatency);
    const point: OpenLoopPoint = {
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
      counterDrift: after - before - result.accepted,
      duplicateOrdinals: result.duplicateOrdinals,
      sendLagP99Ms: result.sendLagP99Ms,
      cpuMicrosPerClick: Object.fromEntries(
        ['gateway', 'game', 'redis'].map((name) => [
          name,
          result.accepted > 0 && Number.isFinite(cpuAfter[name]! - cpuBefore[name]!)
            ? ((cpuAfter[name]! - cpuBefore[name]!) * 1e6) / result.accepted
            : null,
        ]),
      ),
      realtimeCpuMicrosPerMessage:
        total.messages > 0 ? ((cpuAfter.realtime! - cpuBefore.realtime!) * 1e6) / total.messages : null,
      cores: Object.fromEntries(
        Object.keys(pids).map((name) => [
          name,
          Math.round(((cpuAfter[name]! - cpuBefore[name]!) / wallSeconds) * 100) / 100,
        ]),
      ),
      held:
        p99 !== null &&
        p99 <= OPEN_LOOP_P99_BOUND_MS &&
        seenWithin2s >= OPEN_LOOP_SEEN_SHARE &&
        total.connectedNow > 0,
    };
    log(
      `[bench]   open loop ${rate}/s: accepted ${Math.round(point.acceptedPerSecond)}/s, refused ${Math.round(point.refusedPerSecond)}/s` +
        `${point.failed ? `, ${point.failed} unanswered` : ''}; click to screen p50 ${round(point.clickToScreenP50Ms)} ms, p99 ${round(p99)} ms; ` +
        `${(seenWithin2s * 100).toFixed(1)} % seen within 2 s; answers p99 ${round(point.acceptedAnswerP99Ms)} ms, refusals p99 ${round(point.refusalP99Ms) ?? 'n/a'} ms; ` +
        `counter drift ${point.counterDrift}, duplicate ordinals ${point.duplicateOrdinals}; generator lag p99 ${point.sendLagP99Ms} ms; ` +
        `cores ${Object.entries(point.cores)
          .map(([n, c]) => `${n} ${c}`)
          .join(', ')} -> ${point.held ? 'held' : 'did not hold'}`,
    );
    await sleep(o.restS * 1000);
    return point;
  };

  const sweep: OpenLoopPoint[] = [];
  try {
    // Two warm-up steps, not counted (half the first rate, then the first rate): fresh processes answer
    // their first thousands of requests slowly, code not yet optimised and pools still opening.
    log('[bench]   open loop warm-up:');
    for (const rate of [o.startRate / 2, o.startRate]) await step(rate);
    // A rate holds when one step of it holds; a step that does not is tried once more before the rate
    // counts as too high, so one stall of a shared machine (another process's burst) does not end the
    // sweep below rates that hold. Both tries are in the sweep's record.
    const holds = async (rate: number): Promise<boolean> => {
      for (let attempt = 0; attempt < 2; attempt++) {
        const point = await step(rate);
        sweep.push(point);
        if (point.held) return true;
      }
      return false;
    };
    let good: number | null = null;
    let bad: number | null = null;
    for (let rate = o.startRate; rate <= o.maxRate; rate *= 2) {
      if (await holds(rate)) good = rate;
      else {
        bad = rate;
        break;
      }
    }
    if (bad !== null) {
      let low = good ?? 0;
      let high = bad;
      for (let i = 0; i < o.bisections && high - low > Math.max(o.startRate / 4, high / 20); i++) {
        const mid = Math.round((low + high) / 2);
        if (await holds(mid)) low = mid;
        else high = mid;
      }
      good = low > 0 ? low : null;
    }
    // Overload is measured from the knee; when no rate held (a machine busy with other work), from the
    // lowest rate tried, so the refusals are still seen (and the knee is reported as none).
    const base = good ?? Math.min(...sweep.map((p) => p.rate));
    const overload: { factor: number; point: OpenLoopPoint }[] = [];
    for (const factor of o.overloadFactors) overload.push({ factor, point: await step(base * factor) });
    return {
      via,
      listeners: fleet.connected,
      timed: o.timed,
      sweep,
      sustainedRate: good,
      overloadBase: base,
      overload,
    };
  } finally {
    await clicker.stop();
    await fleet.close();
    await sleep(1000);
  }
}
