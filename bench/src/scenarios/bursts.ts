// The crowd at the decisive moment, through the gateway, with the early-retry rule on (as production
// runs it). Bursts of distinct players pressing once each (100 at once, 300 within 200 ms, 1,000 within
// 500 ms, each `tries` times, a pause between): how many were refused, the answer p99 from each press's
// scheduled time, and whether the counter moved by exactly the accepted presses. Then polite players on
// a fixed schedule (5 presses a second each, a press waits out any Retry-After its player was given) at
// a third and two thirds of the knee; then sustained overload at 2× and 3× the knee (the early-retry rule
// off: those load tokens each stand for many players): still shed, with goodput near the knee.
// The knee is BENCH_KNEE (clicks/s) when given, else measured here by a short sweep of the same generator.
import { Pool } from 'undici';
import type { BenchSystem } from '../bench-system.js';
import { registerUsers } from '../bench-system.js';
import { sendClick } from '../impolite.js';
import type { OpenLoopResult } from '../open-loop.js';
import type { Check } from '../check.js';
import type { BenchSettings } from '../settings.js';
import { Histogram, round } from '../stats.js';
import { startWorker, type Worker } from '../workers.js';
import { globalClicks, settledClicks } from './open-loop.js';
import { setSetting } from './refusals.js';

export const BURSTS = [
  { players: 100, spreadMs: 0 },
  { players: 300, spreadMs: 200 },
  { players: 1000, spreadMs: 500 },
] as const;
const PAUSE_MS = 2000;
const PRESSES_PER_PLAYER_PER_SECOND = 5;
const POLITE_FRACTIONS = [1 / 3, 2 / 3];
const OVERLOAD_FACTORS = [2, 3];
export const BURST_TARGETS = { refused: 0, p99Ms: 500, politeRefused: 0, overloadGoodputShare: 0.9 };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface BurstTry {
  players: number;
  spreadMs: number;
  attempt: number;
  accepted: number;
  refused: number;
  other: number;
  answerP99Ms: number | null;
  /** The counter's move less the accepted presses: 0 when every accepted press counted once. */
  counterDrift: number;
}

export interface PolitePoint {
  rate: number;
  players: number;
  offered: number;
  accepted: number;
  refused503: number;
  refused429: number;
}

export interface OverloadPoint {
  factor: number;
  rate: number;
  offered: number;
  acceptedPerSecond: number;
  refused: number;
  refusalsWithRetryAfter: number;
  failed: number;
  answerP99Ms: number | null;
}

export interface BurstsScenario {
  knee: number;
  kneeSource: 'BENCH_KNEE' | 'measured';
  bursts: BurstTry[];
  polite: PolitePoint[];
  overload: OverloadPoint[];
}

async function burst(pool: Pool, tokens: string[], spreadMs: number): Promise<Omit<BurstTry, 'attempt'>> {
  const latency = new Histogram(1, 20_000);
  const counts = { accepted: 0, refused: 0, other: 0 };
  const start = performance.now() + 20;
  await Promise.all(
    tokens.map(async (token, i) => {
      const due = start + (tokens.length > 1 ? (spreadMs * i) / (tokens.length - 1) : 0);
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      const answer = await sendClick(pool, token).catch(() => ({ status: 0, retryAfter: 0 }));
      latency.record(performance.now() - due);
      if (answer.status === 200) counts.accepted += 1;
      else if (answer.status === 503 || answer.status === 429) counts.refused += 1;
      else counts.other += 1;
    }),
  );
  return {
    players: tokens.length,
    spreadMs,
    ...counts,
    answerP99Ms: latency.percentile(99) ?? null,
    counterDrift: 0,
  };
}

/** Players on a fixed schedule, each pressing 5 times a second and waiting out any Retry-After. */
async function polite(pool: Pool, tokens: string[], rate: number, seconds: number): Promise<PolitePoint> {
  const players = Math.min(tokens.length, Math.ceil(rate / PRESSES_PER_PLAYER_PER_SECOND));
  const point: PolitePoint = { rate, players, offered: 0, accepted: 0, refused503: 0, refused429: 0 };
  const backoffUntil = new Array<number>(players).fill(0);
  const busy = new Array<boolean>(players).fill(false);
  const interval = 1000 / rate;
  const inFlight: Promise<void>[] = [];
  const start = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const wait = start + i * interval - performance.now();
    if (wait > 0) await sleep(wait);
    const who = i % players;
    if (performance.now() < backoffUntil[who]! || busy[who]) continue;
    point.offered += 1;
    busy[who] = true;
    inFlight.push(
      sendClick(pool, tokens[who]!)
        .then((a) => {
          if (a.status === 200) point.accepted += 1;
          else {
            if (a.status === 429) point.refused429 += 1;
            else point.refused503 += 1;
            backoffUntil[who] = performance.now() + a.retryAfter * 1000;
          }
        })
        .catch(() => undefined)
        .finally(() => {
          busy[who] = false;
        }),
    );
  }
  await Promise.all(inFlight);
  return point;
}

async function openLoopStep(
  bs: BenchSystem,
  clicker: Worker,
  rate: number,
  stepS: number,
): Promise<OpenLoopResult> {
  return clicker.call<OpenLoopResult>(
    'run',
    {
      url: bs.gatewayUrl,
      tokens: bs.users.map((u) => u.token),
      rate: Math.round(rate),
      durationS: stepS,
      connections: 1000,
      timeoutMs: 10_000,
    },
    (stepS * 4 + 70) * 1000,
  );
}

/** The highest rate of a short sweep (×1.25 from 1,000/s) whose clicks were all accepted with p99 ≤ 150 ms. */
async function measureKnee(
  bs: BenchSystem,
  clicker: Worker,
  stepS: number,
  log: (line: string) => void,
): Promise<number> {
  let held = 0;
  for (let rate = 1000; rate <= 8000; rate = Math.round(rate * 1.25)) {
    const r = await openLoopStep(bs, clicker, rate, stepS);
    const p99 = Histogram.fromJSON(r.acceptedLatency).percentile(99) ?? Infinity;
    const ok = r.accepted >= r.offered * 0.99 && p99 <= 150;
    log(`[bench]   knee sweep ${rate}/s: ${r.accepted} of ${r.offered} accepted, p99 ${round(p99)} ms`);
    await settledClicks(bs.gatewayUrl);
    if (!ok) break;
    held = rate;
  }
  return held || 1000;
}

export async function measureBursts(
  bs: BenchSystem,
  settings: BenchSettings['bursts'],
  log: (line: string) => void,
): Promise<BurstsScenario> {
  const { tries, stepS } = settings;
  const largest = Math.max(...BURSTS.map((b) => b.players));
  const extra =
    largest > bs.users.length ? await registerUsers(bs.gatewayUrl, largest - bs.users.length, log) : [];
  const tokens = [...bs.users, ...extra].map((u) => u.token);
  const clicker = startWorker('open-loop');
  const pool = new Pool(bs.gatewayUrl, { connections: largest });
  try {
    await setSetting(bs, 'gateway', 'CLICK_PENALTY_MAX_KEYS', '0');
    const fromEnv = Number(process.env.BENCH_KNEE);
    const knee = fromEnv > 0 ? fromEnv : await measureKnee(bs, clicker, stepS, log);
    log(`[bench] bursts: knee ${knee} clicks/s (${fromEnv > 0 ? 'BENCH_KNEE' : 'measured'})`);

    await setSetting(bs, 'gateway', 'CLICK_PENALTY_MAX_KEYS', '100000');
    // Every player's first press is their first since the gateway started: warm each connection once.
    await burst(pool, tokens.slice(0, largest), 1000);
    await sleep(PAUSE_MS);
    const bursts: BurstTry[] = [];
    for (const b of BURSTS) {
      for (let attempt = 1; attempt <= tries; attempt++) {
        const before = await globalClicks(bs.gatewayUrl);
        const t = await burst(pool, tokens.slice(0, b.players), b.spreadMs);
        t.counterDrift = (await settledClicks(bs.gatewayUrl)) - before - t.accepted;
        bursts.push({ ...t, attempt });
        log(
          `[bench]   burst ${b.players} within ${b.spreadMs} ms, try ${attempt}: ${t.refused} refused, ${t.other} other, p99 ${round(t.answerP99Ms)} ms, drift ${t.counterDrift}`,
        );
        await sleep(PAUSE_MS);
      }
    }
    const politePoints: PolitePoint[] = [];
    for (const fraction of POLITE_FRACTIONS) {
      const p = await polite(pool, tokens, Math.round(knee * fraction), stepS);
      politePoints.push(p);
      log(
        `[bench]   polite players at ${p.rate}/s (${p.players} players): ${p.accepted} of ${p.offered} accepted, ${p.refused503} shed, ${p.refused429} refused early`,
      );
      await sleep(PAUSE_MS);
    }
    await setSetting(bs, 'gateway', 'CLICK_PENALTY_MAX_KEYS', '0');
    const overload: OverloadPoint[] = [];
    for (const factor of OVERLOAD_FACTORS) {
      const r = await openLoopStep(bs, clicker, knee * factor, stepS);
      const point: OverloadPoint = {
        factor,
        rate: r.rate,
        offered: r.offered,
        acceptedPerSecond: r.accepted / r.durationS,
        refused: r.refused,
        refusalsWithRetryAfter: r.refusalsWithRetryAfter,
        failed: r.failed,
        answerP99Ms: Histogram.fromJSON(r.acceptedLatency).percentile(99) ?? null,
      };
      overload.push(point);
      log(
        `[bench]   overload ${factor}× (${r.rate}/s): ${round(point.acceptedPerSecond)}/s accepted (${round(point.acceptedPerSecond / knee)} of the knee), ${r.refused} refused (${r.refusalsWithRetryAfter} with Retry-After), ${r.failed} unanswered`,
      );
      await settledClicks(bs.gatewayUrl);
    }
    return {
      knee,
      kneeSource: fromEnv > 0 ? 'BENCH_KNEE' : 'measured',
      bursts,
      polite: politePoints,
      overload,
    };
  } finally {
    await pool.close();
    await clicker.stop();
    await setSetting(bs, 'gateway', 'CLICK_PENALTY_MAX_KEYS', undefined);
  }
}

/** Each figure beside its target, for the report's table. */
export function burstChecks(b: BurstsScenario): Check[] {
  const checks: Check[] = [];
  for (const { players, spreadMs } of BURSTS) {
    const tries = b.bursts.filter((t) => t.players === players && t.spreadMs === spreadMs);
    const when = spreadMs === 0 ? 'at once' : `within ${spreadMs} ms`;
    const refused = tries.map((t) => t.refused + t.other);
    const p99 = tries.map((t) => t.answerP99Ms);
    checks.push({
      figure: `Burst of ${players} distinct players ${when}, one press each: refused (each of ${tries.length} tries)`,
      value: refused.join(', '),
      target: String(BURST_TARGETS.refused),
      met: tries.length > 0 && refused.every((n) => n === BURST_TARGETS.refused),
    });
    checks.push({
      figure: `Burst of ${players} ${when}: answer p99 (each try)`,
      value: p99.map((v) => `${round(v)} ms`).join(', '),
      target: `≤ ${BURST_TARGETS.p99Ms} ms`,
      met: tries.length > 0 && p99.every((v) => v !== null && v <= BURST_TARGETS.p99Ms),
    });
  }
  for (const p of b.polite)
    checks.push({
      figure: `Polite players (5 presses/s each, honouring Retry-After) at ${p.rate}/s (${round(p.rate / b.knee)} of the ${b.knee}/s knee): refused`,
      value: `${p.refused503 + p.refused429} of ${p.offered}`,
      target: String(BURST_TARGETS.politeRefused),
      met: p.refused503 + p.refused429 === BURST_TARGETS.politeRefused,
    });
  for (const o of b.overload) {
    const share = o.acceptedPerSecond / b.knee;
    checks.push({
      figure: `Sustained overload ${o.factor}× the knee (${o.rate}/s): goodput / knee; shed with Retry-After`,
      value: `${round(share)}; ${o.refusalsWithRetryAfter} of ${o.refused}`,
      target: `≥ ${BURST_TARGETS.overloadGoodputShare}; some, all with Retry-After`,
      met:
        share >= BURST_TARGETS.overloadGoodputShare &&
        o.refused > 0 &&
        o.refusalsWithRetryAfter === o.refused,
    });
  }
  return checks;
}
