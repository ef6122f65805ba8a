// The viral day, open loop: clicks on a fixed schedule (latency from each click's scheduled time) while
// 1,000 sockets listen and 50 of them time every state update. A sweep doubles the rate until the p99 of
// click to screen passes 150 ms or fewer than 99 % of the clicks are seen within 2 s, then bisects
// between the last rate that held and the first that did not: that is the sustained rate (the knee).
// Then the overload points, 2× and 3× the knee: what is accepted (goodput) and how fast, what is refused
// and how fast, and whether the counter moved by exactly the accepted clicks (nothing lost or doubled).
import type { BenchSystem } from '../bench-system.js';
import type { BenchSettings } from '../settings.js';
import { startWorker } from '../workers.js';
import { openLoopStep, type OpenLoopPoint, type StepRig } from './open-loop-step.js';
import { connectFleet } from './sockets.js';

export {
  globalClicks,
  settledClicks,
  OPEN_LOOP_P99_BOUND_MS,
  OPEN_LOOP_SEEN_SHARE,
  OPEN_LOOP_SEEN_WITHIN_MS,
  type OpenLoopPoint,
} from './open-loop-step.js';

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

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The sweep's knee: doubles the rate from the start until one does not hold, then bisects between the
 * last rate that held and the first that did not. Null when no rate held.
 */
async function findKnee(
  o: BenchSettings['openLoop'],
  holds: (rate: number) => Promise<boolean>,
): Promise<number | null> {
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
  return good;
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
  const rig: StepRig = { bs, o, fleet, clicker, tokens: bs.users.map((u) => u.token), log };
  const step = (rate: number) => openLoopStep(rig, rate);

  const sweep: OpenLoopPoint[] = [];
  try {
    // A warm-up step at the first rate, not counted: fresh processes answer their first thousands of
    // requests slowly, code not yet optimised and pools still opening.
    log('[bench]   open loop warm-up:');
    await step(o.startRate);
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
    const good = await findKnee(o, holds);
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
