// A histogram read from a service's Prometheus text (/metrics), for the difference between two readings.

/** Cumulative counts by upper bound (`le`, in the metric's unit; `+Inf` last). */
export type Buckets = Map<number, number>;

/** The histogram's buckets summed over its label sets, or over those whose labels include `label`. */
export function readHistogram(text: string, name: string, label?: string): Buckets {
  const buckets: Buckets = new Map();
  const pattern = new RegExp(`^${name}_bucket\\{(?:[^}]*,)?le="([^"]+)"[^}]*\\} (\\S+)$`, 'gm');
  for (const [line, le, value] of text.matchAll(pattern)) {
    if (label !== undefined && !line.includes(label)) continue;
    const bound = le === '+Inf' ? Infinity : Number(le);
    buckets.set(bound, (buckets.get(bound) ?? 0) + Number(value));
  }
  return new Map([...buckets].sort((a, b) => a[0] - b[0]));
}

/** The smallest bucket bound under which `percentile` % of the observations between two readings fall. */
export function bucketPercentile(before: Buckets, after: Buckets, percentile: number): number | null {
  const counts = [...after].map(([bound, n]) => [bound, n - (before.get(bound) ?? 0)] as const);
  const total = counts.at(-1)?.[1] ?? 0;
  if (total <= 0) return null;
  const wanted = (percentile / 100) * total;
  return counts.find(([, n]) => n >= wanted)?.[0] ?? null;
}
