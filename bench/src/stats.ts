// Small statistics used by every scenario: percentiles, a mergeable latency histogram (so that socket
// workers can ship a few kilobytes instead of millions of samples) and ratios that survive a zero.

/** The p-th percentile (0..100) of values, nearest-rank; undefined for no values. */
export function percentile(values: readonly number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

export function median(values: readonly number[]): number | undefined {
  return percentile(values, 50);
}

/** a / b, or null when either is missing or b is zero (a ratio that cannot be measured is not 0). */
export function ratio(a: number | null | undefined, b: number | null | undefined): number | null {
  if (
    a === null ||
    a === undefined ||
    b === null ||
    b === undefined ||
    !Number.isFinite(a) ||
    !Number.isFinite(b) ||
    b === 0
  )
    return null;
  return a / b;
}

/** Rounds for reports: 3 significant digits, integers kept whole. */
export function round(value: number | null | undefined, digits = 3): number | null {
  if (value === null || value === undefined || !Number.isFinite(value)) return null;
  if (Math.abs(value) >= 10 ** digits) return Math.round(value);
  return Number(value.toPrecision(digits));
}

export interface HistogramData {
  binMs: number;
  counts: number[];
  /** Samples above the last bin. */
  overflow: number;
  /** Samples below zero, counted in the first bin as well (an update seen before its acknowledgement). */
  negative: number;
  total: number;
  maxMs: number;
}

/** Fixed-width latency bins from 0 to `rangeMs`; merging two histograms is adding their counts. */
export class Histogram {
  readonly binMs: number;
  private readonly counts: Uint32Array;
  private overflow = 0;
  private negative = 0;
  private total = 0;
  private maxMs = 0;

  constructor(binMs = 0.5, rangeMs = 10_000) {
    this.binMs = binMs;
    this.counts = new Uint32Array(Math.ceil(rangeMs / binMs));
  }

  record(ms: number): void {
    this.total += 1;
    if (ms < 0) this.negative += 1;
    if (ms > this.maxMs) this.maxMs = ms;
    const bin = Math.floor(Math.max(0, ms) / this.binMs);
    if (bin >= this.counts.length) this.overflow += 1;
    else this.counts[bin]! += 1;
  }

  get count(): number {
    return this.total;
  }

  /** Upper edge of the bin holding the p-th percentile (0..100); the maximum when it overflowed. */
  percentile(p: number): number | undefined {
    if (this.total === 0) return undefined;
    const rank = Math.max(1, Math.ceil((p / 100) * this.total));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) return (i + 1) * this.binMs;
    }
    return this.maxMs;
  }

  /** Samples of at most `ms` (to the bin's precision). */
  countAtMost(ms: number): number {
    const last = Math.min(this.counts.length, Math.floor(ms / this.binMs));
    let seen = 0;
    for (let i = 0; i < last; i++) seen += this.counts[i]!;
    return seen;
  }

  toJSON(): HistogramData {
    return {
      binMs: this.binMs,
      counts: Array.from(this.counts),
      overflow: this.overflow,
      negative: this.negative,
      total: this.total,
      maxMs: this.maxMs,
    };
  }

  static fromJSON(data: HistogramData): Histogram {
    const histogram = new Histogram(data.binMs, data.counts.length * data.binMs);
    histogram.merge(data);
    return histogram;
  }

  merge(data: HistogramData): void {
    if (data.binMs !== this.binMs || data.counts.length !== this.counts.length)
      throw new Error('histograms of different shapes cannot be merged');
    for (let i = 0; i < data.counts.length; i++) this.counts[i]! += data.counts[i]!;
    this.overflow += data.overflow;
    this.negative += data.negative;
    this.total += data.total;
    this.maxMs = Math.max(this.maxMs, data.maxMs);
  }
}

/**
 * For one client, the time from each acknowledged click to the first update that contains it.
 * `updates` are the counters a client saw (non-decreasing within a round) with arrival times; `acks` the
 * clicks' ordinals with acknowledgement times, sorted by ordinal. Clicks never shown are returned as missed.
 */
export function clickToScreen(
  updates: { counters: ArrayLike<number>; times: ArrayLike<number>; length: number },
  acks: { ordinals: ArrayLike<number>; times: ArrayLike<number>; length: number },
  histogram: Histogram,
): { matched: number; missed: number } {
  let u = 0;
  let matched = 0;
  let missed = 0;
  for (let a = 0; a < acks.length; a++) {
    const ordinal = acks.ordinals[a]!;
    while (u < updates.length && updates.counters[u]! < ordinal) u++;
    if (u >= updates.length) {
      missed += acks.length - a;
      break;
    }
    histogram.record(updates.times[u]! - acks.times[a]!);
    matched += 1;
  }
  return { matched, missed };
}

/** Evenly spaced picks of at most `max` items, keeping order (bounds the work of the latency join). */
export function sampleEvenly<T>(items: readonly T[], max: number): T[] {
  if (items.length <= max) return [...items];
  const step = items.length / max;
  return Array.from({ length: max }, (_, i) => items[Math.floor(i * step)]!);
}
