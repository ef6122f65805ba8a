import { describe, expect, it } from 'vitest';
import { bucketPercentile, readHistogram } from './prom.js';

const reading = (counts: number[]) =>
  [
    '# HELP realtime_tick_write_seconds x',
    '# TYPE realtime_tick_write_seconds histogram',
    ...[0.01, 0.05, 0.1, '+Inf'].map(
      (le, i) => `realtime_tick_write_seconds_bucket{le="${le}"} ${counts[i]}`,
    ),
    `realtime_tick_write_seconds_sum 1`,
    `realtime_tick_write_seconds_count ${counts[3]}`,
    'other_bucket{le="0.01"} 99',
  ].join('\n');

describe('a histogram between two readings of /metrics', () => {
  it('gives the bucket bound of a percentile of what was observed in between', () => {
    const before = readHistogram(reading([5, 5, 5, 5]), 'realtime_tick_write_seconds');
    const after = readHistogram(reading([5, 95, 104, 105]), 'realtime_tick_write_seconds');
    expect([...after.keys()]).toEqual([0.01, 0.05, 0.1, Infinity]);
    expect(bucketPercentile(before, after, 50)).toBe(0.05);
    expect(bucketPercentile(before, after, 99)).toBe(0.1);
    expect(bucketPercentile(before, after, 100)).toBe(Infinity);
    expect(bucketPercentile(after, after, 50)).toBeNull();
    expect(readHistogram('', 'realtime_tick_write_seconds').size).toBe(0);
  });
});

describe('a histogram with labels', () => {
  it('reads only the series whose labels include the one asked for', () => {
    const text = [
      'gateway_click_admission_wait_seconds_bucket{le="0.001",outcome="admitted"} 7',
      'gateway_click_admission_wait_seconds_bucket{le="+Inf",outcome="admitted"} 9',
      'gateway_click_admission_wait_seconds_bucket{le="0.001",outcome="refused"} 1',
      'gateway_click_admission_wait_seconds_bucket{le="+Inf",outcome="refused"} 4',
    ].join('\n');
    const name = 'gateway_click_admission_wait_seconds';
    expect([...readHistogram(text, name, 'outcome="admitted"')]).toEqual([
      [0.001, 7],
      [Infinity, 9],
    ]);
    expect([...readHistogram(text, name)]).toEqual([
      [0.001, 8],
      [Infinity, 13],
    ]);
  });
});
