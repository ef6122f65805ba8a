// The latency budget of a click from button to screen (docs/performance.md, "The latency budget"):
// each stage, the histogram that measures it (every service's /metrics, in seconds) and its share of the
// end-to-end bound, the tick plus 25 ms. A stage's figures are the p50 and p99 of what it recorded
// between two readings; the percentiles are bucket bounds (STAGE_BUCKETS), so they read as "at most".
import { bucketPercentile, readHistogram, type Buckets } from './prom.js';

export interface StageBudget {
  stage: string;
  /** The deployable whose /metrics has it. */
  process: 'gateway' | 'game' | 'realtime';
  metric: string;
  /** Only the series with this label (e.g. outcome="admitted"). */
  label?: string;
  /** The stage's share of the end-to-end p99, in ms; the publish slot's is the tick. */
  budgetMs: (tickMs: number) => number;
}

export const STAGES: readonly StageBudget[] = [
  {
    stage: 'gateway admission',
    process: 'gateway',
    metric: 'gateway_click_admission_wait_seconds',
    label: 'outcome="admitted"',
    budgetMs: () => 2,
  },
  {
    stage: 'game admission',
    process: 'game',
    metric: 'game_click_admission_wait_seconds',
    label: 'outcome="admitted"',
    budgetMs: () => 2,
  },
  {
    stage: 'game batch wait',
    process: 'game',
    metric: 'game_click_batch_wait_seconds',
    budgetMs: () => 5,
  },
  { stage: 'Redis batch script', process: 'game', metric: 'game_click_batch_seconds', budgetMs: () => 3 },
  {
    stage: 'publish slot',
    process: 'game',
    metric: 'game_state_publish_wait_seconds',
    budgetMs: (tickMs) => tickMs,
  },
  {
    stage: 'bus to realtime',
    process: 'realtime',
    metric: 'realtime_broadcast_lag_seconds',
    budgetMs: () => 5,
  },
  { stage: 'socket writes', process: 'realtime', metric: 'realtime_tick_write_seconds', budgetMs: () => 5 },
];

/** What is left of the end-to-end bound for the tunnel and the browser's socket (not measured apart). */
export const TUNNEL_BUDGET_MS = 3;

/** The end-to-end bound on click to screen p99: the tick plus 25 ms. */
export const clickToScreenBudgetMs = (tickMs: number) => tickMs + 25;

export type StageReading = Map<string, Buckets>;

export interface StageFigure {
  stage: string;
  budgetMs: number;
  p50Ms: number | null;
  p99Ms: number | null;
  /** Observations between the two readings. */
  samples: number;
}

/** Each stage's histogram now, from the /metrics of each deployable's process (absent: not read). */
export async function readStages(urls: Record<StageBudget['process'], string>): Promise<StageReading> {
  const texts = new Map<string, string>();
  for (const process of new Set(STAGES.map((s) => s.process)))
    try {
      const response = await fetch(`${urls[process]}/metrics`, { signal: AbortSignal.timeout(5000) });
      texts.set(process, await response.text());
    } catch {
      // unreadable: its stages are reported as not measured
    }
  const reading: StageReading = new Map();
  for (const s of STAGES) {
    const text = texts.get(s.process);
    if (text !== undefined) reading.set(s.stage, readHistogram(text, s.metric, s.label));
  }
  return reading;
}

const ms = (seconds: number | null) => (seconds === null ? null : Math.round(seconds * 1e5) / 100);

/** Each stage's p50 and p99 between two readings, beside its budget. */
export function stageFigures(before: StageReading, after: StageReading, tickMs: number): StageFigure[] {
  return STAGES.map((s) => {
    const from = before.get(s.stage);
    const to = after.get(s.stage);
    const samples = from && to ? (to.get(Infinity) ?? 0) - (from.get(Infinity) ?? 0) : 0;
    return {
      stage: s.stage,
      budgetMs: s.budgetMs(tickMs),
      p50Ms: from && to ? ms(bucketPercentile(from, to, 50)) : null,
      p99Ms: from && to ? ms(bucketPercentile(from, to, 99)) : null,
      samples,
    };
  });
}
