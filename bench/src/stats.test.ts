import { describe, expect, it } from 'vitest';
import { clickToScreen, Histogram, percentile, ratio, round, sampleEvenly } from './stats.js';

describe('percentile', () => {
  it('uses the nearest rank', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile(values, 100)).toBe(100);
    expect(percentile([7], 99)).toBe(7);
    expect(percentile([], 50)).toBeUndefined();
  });
});

describe('ratio', () => {
  it('divides, and refuses to invent a figure from a zero or a missing side', () => {
    expect(ratio(30, 40)).toBe(0.75);
    expect(ratio(30, 0)).toBeNull();
    expect(ratio(null, 10)).toBeNull();
    expect(ratio(10, undefined)).toBeNull();
  });

  it('rounds to significant digits', () => {
    expect(round(0.123456)).toBe(0.123);
    expect(round(123456.7)).toBe(123457);
    expect(round(null)).toBeNull();
  });
});

describe('Histogram', () => {
  it('reports the upper edge of the percentile bin, and merges by adding counts', () => {
    const a = new Histogram(1, 100);
    const b = new Histogram(1, 100);
    for (let i = 0; i < 99; i++) a.record(10.2);
    b.record(57.5);
    a.merge(b.toJSON());
    expect(a.count).toBe(100);
    expect(a.percentile(50)).toBe(11);
    expect(a.percentile(99)).toBe(11);
    expect(a.percentile(100)).toBe(58);
  });

  it('keeps overflow and negative samples visible', () => {
    const h = new Histogram(1, 10);
    h.record(-3);
    h.record(500);
    const data = h.toJSON();
    expect(data.negative).toBe(1);
    expect(data.overflow).toBe(1);
    expect(h.percentile(100)).toBe(500);
    expect(Histogram.fromJSON(data).count).toBe(2);
  });
});

describe('clickToScreen', () => {
  it('joins each acknowledged click to the first update that contains it', () => {
    const updates = { counters: [5, 12, 30], times: [100, 200, 300], length: 3 };
    const acks = { ordinals: [3, 5, 6, 12, 31], times: [90, 95, 150, 190, 290], length: 5 };
    const h = new Histogram(1, 1000);
    expect(clickToScreen(updates, acks, h)).toEqual({ matched: 4, missed: 1 });
    // 3 and 5 -> update at 100 (10 and 5 ms), 6 -> 200 (50 ms), 12 -> 200 (10 ms)
    expect(h.percentile(100)).toBe(51);
    expect(h.percentile(50)).toBe(11);
  });
});

describe('sampleEvenly', () => {
  it('keeps order and bounds the count', () => {
    expect(sampleEvenly([1, 2, 3], 5)).toEqual([1, 2, 3]);
    expect(sampleEvenly([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 5)).toEqual([0, 2, 4, 6, 8]);
  });
});
