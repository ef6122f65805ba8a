// The crowd comes back all at once (docs/operations.md, "Rolling out realtime"): realtime processes of
// the bench's own behind a gateway of their own, web-app-like clients (crowd-worker.ts), and
//  - storm: one of two processes is killed (SIGKILL): every client back with a state within 10 s, HTTP
//    reads per returning client, 5xx, and the other players' click to screen during the storm / before;
//  - rollout: every process replaced in turn as the deployment does (its successor started and ready
//    first, then SIGTERM: the drain) under clients and clicks: the longest any client went without a
//    state, against the drain window, and the errors the web app would show;
//  - fleet: realtime CPU per delivered message with 3 processes / 1 (same clients, clicks, run, in turn), and
//    with Redis 7's sharded adapter / the classic one.
import type { BenchSystem } from '../bench-system.js';
import type { CrowdSummary } from '../crowd-worker.js';
import { startRealtimeFleet, type RealtimeFleet } from '../realtime-fleet.js';
import { predictionError, predictMicrosPerMessage, processCost, type ProcessCost } from '../capacity.js';
import type { Check } from '../check.js';
import { ratio, round } from '../stats.js';
import { startWorker, type Worker } from '../workers.js';

export const CROWD_TARGETS = {
  backWithinMs: 10_000,
  httpPerReturningClient: 0.1,
  clickToScreenStormRatio: 2,
  fleetCostRatio: 1.15,
  /** The capacity model's prediction of 2 and 3 processes, as a fraction of what they then measure. */
  fleetPredictionError: 0.15,
};

/**
 * The drain window the bench's processes use: about half of production's (15 s, k8s/base/realtime), to
 * keep the run short; the longest a client may go without a state is measured against it.
 */
const DRAIN_ENV = { DRAIN_MS: '8000', SHUTDOWN_GRACE_MS: '11000' };
/** The rollout drains as k8s/base/realtime does (docs/operations.md, "Rolling out realtime"). */
const ROLLOUT_DRAIN_ENV = { DRAIN_MS: '15000', SHUTDOWN_GRACE_MS: '20000' };
const CLIENTS_PER_WORKER = 1000;
/**
 * How long the fleet's clients are connected before the measured window: a process runs its per-socket
 * and per-tick code for the first time as they arrive (compiling it), once per process, which a pod that
 * lives for hours does not pay per message.
 */
const FLEET_SETTLE_MS = 4000;
/** Seconds the fleet's processes are measured with no client connected. */
const IDLE_WINDOW_S = 3;

export interface StormResult {
  requested: number;
  connected: number;
  returning: number;
  backMaxMs: number | null;
  allBack: boolean;
  httpPerReturningClient: number | null;
  http5xx: number;
  clickToScreenBeforeP99Ms: number | null;
  clickToScreenDuringP99Ms: number | null;
  clickToScreenRatio: number | null;
}

export interface RolloutResult {
  requested: number;
  connected: number;
  processes: number;
  clickRate: number;
  drainMs: number;
  longestWithoutStateMs: number | null;
  errorsShown: number;
  moves: number;
  allBack: boolean;
  httpPerReturningClient: number | null;
}

export interface FleetPoint {
  processes: number;
  adapter: 'classic' | 'sharded';
  clients: number;
  messages: number;
  cpuMicrosPerMessage: number | null;
  /** CPU (cores) each process uses with the clicks flowing and no client connected. */
  idleCoresPerProcess: number;
  /**
   * The same with one client listening (one process alone): what a process costs once it has anyone to
   * send to, each state decoded and encoded whatever the number of its sockets.
   */
  listeningCoresPerProcess?: number;
}

/** The capacity model's prediction for a fleet, made from one process before the fleet was measured. */
export interface FleetPrediction {
  processes: number;
  predictedMicrosPerMessage: number;
  measuredMicrosPerMessage: number | null;
  error: number | null;
}

export interface FleetCostResult {
  points: FleetPoint[];
  /** One process's cost (capacity.ts), measured alone. */
  processCost: ProcessCost | null;
  predictions: FleetPrediction[];
  oneMicrosPerMessage: number | null;
  threeMicrosPerMessage: number | null;
  threeToOne: number | null;
  shardedToClassic: number | null;
}

export interface CrowdResult {
  storm?: StormResult;
  rollout?: RolloutResult;
  fleet?: FleetCostResult;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const max = (values: (number | null)[]) =>
  values.some((v) => v !== null) ? Math.max(...values.filter((v): v is number => v !== null)) : null;

/**
 * Web-app-like clients spread over worker processes, all recording and summarised together. The `timed`
 * clients (whose click to screen is measured) have a process of their own: "the other players" are on
 * other machines than the crowd that reconnects, so their screens are not held up by its handshakes.
 */
async function openCrowd(bs: BenchSystem, fleet: RealtimeFleet, count: number, timed: number) {
  const plan: { count: number; timed: number }[] = timed > 0 ? [{ count: timed, timed }] : [];
  for (let left = count - timed; left > 0; left -= CLIENTS_PER_WORKER)
    plan.push({ count: Math.min(CLIENTS_PER_WORKER, left), timed: 0 });
  const workers: Worker[] = plan.map(() => startWorker('crowd-worker'));
  const tokens = bs.users.map((u) => u.token);
  const parts = await Promise.all(
    workers.map((w, i) =>
      w.call<{ connected: number }>(
        'connect',
        { url: fleet.gatewayUrl, api: fleet.gatewayUrl, ...plan[i]!, tokens },
        300_000,
      ),
    ),
  ).catch(async (error: unknown) => {
    // The caller gets no crowd to close: its workers are stopped here.
    await Promise.all(workers.map((w) => w.stop()));
    throw error;
  });
  const connected = parts.reduce((sum, p) => sum + p.connected, 0);
  return {
    connected,
    record: () => Promise.all(workers.map((w) => w.call<number>('record'))),
    async summary(
      args: { clicks?: [number, number][]; windows?: [number, number][] } = {},
    ): Promise<CrowdSummary> {
      const all = await Promise.all(workers.map((w) => w.call<CrowdSummary>('summary', args, 120_000)));
      const sum = (pick: (s: CrowdSummary) => number) => all.reduce((n, s) => n + pick(s), 0);
      return {
        clients: sum((s) => s.clients),
        up: sum((s) => s.up),
        dropped: sum((s) => s.dropped),
        reconnects: sum((s) => s.reconnects),
        moves: sum((s) => s.moves),
        shownErrors: sum((s) => s.shownErrors),
        profileReads: sum((s) => s.profileReads),
        profile5xx: sum((s) => s.profile5xx),
        messages: sum((s) => s.messages),
        errorMessages: Object.assign({}, ...all.map((s) => s.errorMessages)),
        backed: sum((s) => s.backed),
        backMaxMs: max(all.map((s) => s.backMaxMs)),
        backP99Ms: max(all.map((s) => s.backP99Ms)),
        maxGapMs: max(all.map((s) => s.maxGapMs)),
        // Each worker's p99 over its own timed clients; the worst of them.
        clickToScreenP99Ms: (args.windows ?? []).map((_, i) => max(all.map((s) => s.clickToScreenP99Ms[i]!))),
      };
    },
    async close() {
      await Promise.allSettled(workers.map((w) => w.call('close', undefined, 30_000)));
      await Promise.all(workers.map((w) => w.stop()));
    },
  };
}

/** Polls the crowd until every client is up with a state, or `timeoutMs` passed. */
async function allUp(crowd: Awaited<ReturnType<typeof openCrowd>>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const s = await crowd.summary();
    if (s.up === s.clients) return true;
    await sleep(250);
  }
  return false;
}

function startClicker(bs: BenchSystem, url: string, rate: number) {
  const worker = startWorker('crowd-worker');
  const tokens = bs.users.map((u) => u.token);
  let stopped: Promise<{ sent: [number, number][]; errors: number }> | undefined;
  return {
    start: () => worker.call('startClicks', { url, tokens, rate }),
    /** Stops the clicks and the worker (once; later calls get the same answer). */
    stop() {
      stopped ??= worker
        .call<{ sent: [number, number][]; errors: number }>('stopClicks')
        .finally(() => worker.stop());
      return stopped;
    },
  };
}

export async function measureStorm(
  root: string,
  bs: BenchSystem,
  count: number,
  log: (line: string) => void,
): Promise<StormResult> {
  const fleet = await startRealtimeFleet(root, bs, { count: 2, env: DRAIN_ENV, label: 'storm' });
  const clicker = startClicker(bs, fleet.gatewayUrl, 50);
  let crowd: Awaited<ReturnType<typeof openCrowd>> | undefined;
  try {
    // A tenth of the crowd, at most 200, are the other players whose click to screen is timed.
    crowd = await openCrowd(bs, fleet, count, Math.min(200, Math.ceil(count / 10)));
    log(`[bench] storm: ${crowd.connected} of ${count} clients on 2 realtime processes`);
    await clicker.start();
    await sleep(1000);
    const [startedAt] = await crowd.record();
    await sleep(5000);
    const held = await fleet.sockets();
    log(`[bench] storm: sockets per process before the kill: ${held.join(', ')}`);
    const killedAt = Date.now();
    await fleet.stopMember(0, 'SIGKILL');
    const back = await allUp(crowd, 30_000);
    await sleep(Math.max(0, killedAt + CROWD_TARGETS.backWithinMs - Date.now()));
    const { sent } = await clicker.stop();
    const s = await crowd.summary({
      clicks: sent,
      windows: [
        [startedAt!, killedAt],
        [killedAt, killedAt + CROWD_TARGETS.backWithinMs],
      ],
    });
    const [before, during] = s.clickToScreenP99Ms;
    const result: StormResult = {
      requested: count,
      connected: crowd.connected,
      returning: s.backed,
      backMaxMs: s.backMaxMs,
      allBack: back && (s.backMaxMs ?? Infinity) <= CROWD_TARGETS.backWithinMs,
      httpPerReturningClient: ratio(s.profileReads, s.backed),
      http5xx: s.profile5xx,
      clickToScreenBeforeP99Ms: before ?? null,
      clickToScreenDuringP99Ms: during ?? null,
      clickToScreenRatio: ratio(during, before),
    };
    const { dropped, reconnects, errorMessages } = s;
    log(`[bench] storm: ${JSON.stringify({ ...result, dropped, reconnects, errorMessages })}`);
    return result;
  } finally {
    await clicker.stop().catch(() => undefined);
    await crowd?.close();
    await fleet.stop();
  }
}

export async function measureRollout(
  root: string,
  bs: BenchSystem,
  count: number,
  clickRate: number,
  log: (line: string) => void,
): Promise<RolloutResult> {
  const processes = 2;
  const fleet = await startRealtimeFleet(root, bs, {
    count: processes,
    env: ROLLOUT_DRAIN_ENV,
    label: 'rollout',
    spare: true,
  });
  const clicker = startClicker(bs, fleet.gatewayUrl, clickRate);
  let crowd: Awaited<ReturnType<typeof openCrowd>> | undefined;
  try {
    crowd = await openCrowd(bs, fleet, count, 0);
    log(`[bench] rollout: ${crowd.connected} of ${count} clients on ${processes} realtime processes`);
    await clicker.start();
    await sleep(1000);
    await crowd.record();
    for (let i = 0; i < processes; i += 1) {
      await fleet.replaceMember(i);
      log(`[bench] rollout: process ${i + 1} of ${processes} replaced`);
    }
    const back = await allUp(crowd, 30_000);
    await sleep(1000);
    await clicker.stop();
    const s = await crowd.summary();
    const result: RolloutResult = {
      requested: count,
      connected: crowd.connected,
      processes,
      clickRate,
      drainMs: Number(ROLLOUT_DRAIN_ENV.DRAIN_MS),
      longestWithoutStateMs: s.maxGapMs,
      errorsShown: s.shownErrors,
      moves: s.moves,
      allBack: back,
      httpPerReturningClient: ratio(s.profileReads, s.backed),
    };
    log(`[bench] rollout: ${JSON.stringify({ ...result, errorMessages: s.errorMessages })}`);
    return result;
  } finally {
    await clicker.stop().catch(() => undefined);
    await crowd?.close();
    await fleet.stop();
  }
}

async function fleetPoint(
  root: string,
  bs: BenchSystem,
  processes: number,
  adapter: FleetPoint['adapter'],
  count: number,
  durationS: number,
  cpuProfDir: string | undefined,
): Promise<FleetPoint> {
  const fleet = await startRealtimeFleet(root, bs, {
    count: processes,
    // Stopped without the drain (no client is left to move): the fleet measures only CPU per message.
    env: { SOCKET_ADAPTER: adapter, DRAIN_MS: '0' },
    label: `fleet-${processes}-${adapter}`,
    cpuProfDir,
  });
  const clicker = startClicker(bs, fleet.gatewayUrl, 100);
  let crowd: Awaited<ReturnType<typeof openCrowd>> | undefined;
  try {
    // The processes' own cost, clicks flowing and nobody connected: what each costs whatever it holds.
    await clicker.start();
    await sleep(1000);
    const idleBefore = fleet.cpu();
    await sleep(IDLE_WINDOW_S * 1000);
    const idleCoresPerProcess = (fleet.cpu() - idleBefore) / IDLE_WINDOW_S / processes;
    let listeningCoresPerProcess: number | undefined;
    if (processes === 1) {
      const one = await openCrowd(bs, fleet, 1, 0);
      try {
        await sleep(1000);
        const before = fleet.cpu();
        await sleep(IDLE_WINDOW_S * 1000);
        listeningCoresPerProcess = (fleet.cpu() - before) / IDLE_WINDOW_S;
      } finally {
        await one.close();
      }
    }
    crowd = await openCrowd(bs, fleet, count, 0);
    await sleep(FLEET_SETTLE_MS);
    await crowd.record();
    const cpuBefore = fleet.cpu();
    await sleep(durationS * 1000);
    const cpu = fleet.cpu() - cpuBefore;
    const s = await crowd.summary();
    return {
      processes,
      adapter,
      clients: crowd.connected,
      messages: s.messages,
      cpuMicrosPerMessage: ratio(cpu * 1e6, s.messages),
      idleCoresPerProcess,
      ...(listeningCoresPerProcess === undefined ? {} : { listeningCoresPerProcess }),
    };
  } finally {
    await clicker.stop().catch(() => undefined);
    await crowd?.close();
    await fleet.stop();
  }
}

/** Each configuration's CPU per message, over all its points (the sum of CPU over the sum of messages). */
function perMessage(points: FleetPoint[], processes: number, adapter: FleetPoint['adapter']) {
  const chosen = points.filter((p) => p.processes === processes && p.adapter === adapter);
  const cpuMicros = chosen.reduce((sum, p) => sum + (p.cpuMicrosPerMessage ?? 0) * p.messages, 0);
  return ratio(
    cpuMicros,
    chosen.reduce((sum, p) => sum + p.messages, 0),
  );
}

/**
 * One process, two and three, and with `sharded` three on the sharded adapter, one run each; each ratio
 * is of the configurations' CPU per message. Two and three are predicted from one before they run
 * (capacity.ts).
 */
export async function measureFleetCost(
  root: string,
  bs: BenchSystem,
  count: number,
  durationS: number,
  sharded: boolean,
  log: (line: string) => void,
  cpuProfDir?: string,
): Promise<FleetCostResult> {
  const points: FleetPoint[] = [];
  const runs: [number, FleetPoint['adapter']][] = [
    [1, 'classic'],
    [2, 'classic'],
    [3, 'classic'],
    ...(sharded ? [[3, 'sharded'] as [number, FleetPoint['adapter']]] : []),
  ];
  let cost: ProcessCost | null = null;
  const predictions: FleetPrediction[] = [];
  for (const [processes, adapter] of runs) {
    // The model's figure for this fleet is fixed before it runs, from the one process measured first.
    const predicted = cost && adapter === 'classic' ? predictMicrosPerMessage(cost, processes) : null;
    const point = await fleetPoint(root, bs, processes, adapter, count, durationS, cpuProfDir);
    if (processes === 1 && adapter === 'classic') cost = processCost(point, durationS);
    if (predicted !== null) {
      predictions.push({
        processes,
        predictedMicrosPerMessage: predicted,
        measuredMicrosPerMessage: point.cpuMicrosPerMessage,
        error: predictionError(predicted, point.cpuMicrosPerMessage),
      });
      log(
        `[bench] fleet: ${processes} processes predicted ${round(predicted)} µs per message, measured ${fmt(point.cpuMicrosPerMessage, ' µs')}`,
      );
    }
    log(
      `[bench] fleet: ${processes} × ${adapter}, ${point.clients} clients: ${point.messages} messages, ${round(point.cpuMicrosPerMessage)} µs each; ${round(point.idleCoresPerProcess * 1000)} ms/s per process with no client`,
    );
    points.push(point);
  }
  const one = perMessage(points, 1, 'classic');
  const three = perMessage(points, 3, 'classic');
  return {
    points,
    processCost: cost,
    predictions,
    oneMicrosPerMessage: one,
    threeMicrosPerMessage: three,
    threeToOne: ratio(three, one),
    shardedToClassic: ratio(perMessage(points, 3, 'sharded'), three),
  };
}

const fmt = (v: number | null | undefined, unit = '') =>
  v === null || v === undefined ? 'n/a' : `${round(v)}${unit}`;

/** The crowd's figures beside their targets, for the report. */
export function crowdChecks(crowd: CrowdResult | undefined): Check[] {
  const checks: Check[] = [];
  const { storm, rollout, fleet } = crowd ?? {};
  if (storm) {
    const scaled = storm.connected < 2000 ? ` (${storm.connected} clients, not 2,000)` : '';
    checks.push(
      {
        figure: `Storm: one of two realtime processes killed, ${storm.returning} clients returning${scaled}: the last back with a state`,
        value: fmt(storm.backMaxMs, ' ms'),
        target: `≤ ${CROWD_TARGETS.backWithinMs} ms, every client`,
        met: storm.allBack,
      },
      {
        figure: 'Storm: HTTP requests per returning client (5xx)',
        value: `${fmt(storm.httpPerReturningClient)} (${storm.http5xx})`,
        target: `≤ ${CROWD_TARGETS.httpPerReturningClient} (0)`,
        met:
          storm.httpPerReturningClient === null
            ? null
            : storm.httpPerReturningClient <= CROWD_TARGETS.httpPerReturningClient && storm.http5xx === 0,
      },
      {
        figure: "Storm: the other players' click to screen p99, during / before",
        value: `${fmt(storm.clickToScreenRatio)} (${fmt(storm.clickToScreenDuringP99Ms, ' ms')} / ${fmt(storm.clickToScreenBeforeP99Ms, ' ms')})`,
        target: `≤ ${CROWD_TARGETS.clickToScreenStormRatio}`,
        met:
          storm.clickToScreenRatio === null
            ? null
            : storm.clickToScreenRatio <= CROWD_TARGETS.clickToScreenStormRatio,
      },
    );
  }
  if (rollout)
    checks.push({
      figure: `Rolling replacement of ${rollout.processes} realtime processes under ${rollout.connected} clients and ${rollout.clickRate} clicks/s: longest without state (errors shown)`,
      value: `${fmt(rollout.longestWithoutStateMs, ' ms')} (${rollout.errorsShown})`,
      target: `≤ ${rollout.drainMs} ms, the drain window (0)`,
      met:
        rollout.longestWithoutStateMs === null
          ? null
          : rollout.allBack && rollout.longestWithoutStateMs <= rollout.drainMs && rollout.errorsShown === 0,
    });
  if (fleet) {
    const clients = fleet.points[0]?.clients ?? 0;
    checks.push({
      figure: `Realtime CPU per delivered message, 3 processes / 1 (${clients} clients)`,
      value: `${fmt(fleet.threeToOne)} (${fmt(fleet.threeMicrosPerMessage, ' µs')} / ${fmt(fleet.oneMicrosPerMessage, ' µs')})`,
      target: `≤ ${CROWD_TARGETS.fleetCostRatio}`,
      met: fleet.threeToOne === null ? null : fleet.threeToOne <= CROWD_TARGETS.fleetCostRatio,
    });
    const cost = fleet.processCost;
    if (cost)
      checks.push({
        figure: `Capacity model: one realtime process's fixed share; CPU per delivered message beyond it (${clients} clients, ${fmt(cost.messagesPerSecond)} messages/s)`,
        value: `${fmt(cost.fixedCores * 1000, ' ms/s')}; ${fmt(cost.microsPerMessage, ' µs')}`,
        target: 'figure',
        met: null,
      });
    for (const p of fleet.predictions ?? [])
      checks.push({
        figure: `Capacity model: realtime CPU per delivered message at ${p.processes} processes, predicted from one before measuring / measured`,
        value: `${fmt(p.predictedMicrosPerMessage, ' µs')} / ${fmt(p.measuredMicrosPerMessage, ' µs')} (${p.error === null ? 'n/a' : `${round(p.error * 100)} % off`})`,
        target: `within ${CROWD_TARGETS.fleetPredictionError * 100} %`,
        met: p.error === null ? null : p.error <= CROWD_TARGETS.fleetPredictionError,
      });
    if (fleet.points.some((p) => p.adapter === 'sharded'))
      checks.push({
        figure: 'Realtime CPU per delivered message, 3 processes: sharded Redis adapter / classic',
        value: fmt(fleet.shardedToClassic),
        target: 'figure',
        met: null,
      });
  }
  return checks;
}
