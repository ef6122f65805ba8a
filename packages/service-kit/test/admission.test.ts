// The adaptive click limit, on a clock the test moves: it refuses over the limit at once, shrinks when
// admitted requests run past the latency target, grows back when healthy and the limit binds, and
// keeps to its floor and its bound.
import { describe, expect, it } from 'vitest';
import { Admission } from '../src/admission.js';

function harness(options: { maxInFlight: number; minInFlight?: number; targetMs?: number }) {
  let now = 0;
  const admission = new Admission({ targetMs: options.targetMs ?? 20, ...options, now: () => now });
  return {
    admission,
    advance: (ms: number) => (now += ms),
    /** Admits up to n requests; returns the admitted start times and the refusal count. */
    burst(n: number) {
      const admitted: number[] = [];
      let refused = 0;
      for (let i = 0; i < n; i++) {
        const t = admission.enter();
        if (t === undefined) refused += 1;
        else admitted.push(t);
      }
      return { admitted, refused };
    },
  };
}

describe('adaptive admission', () => {
  it('refuses at once over the limit, and admits again as requests leave', () => {
    const h = harness({ maxInFlight: 10 });
    const { admitted, refused } = h.burst(25);
    expect(admitted).toHaveLength(10);
    expect(refused).toBe(15);
    h.admission.leave(admitted.pop()!);
    expect(h.admission.enter()).toBeDefined();
    expect(h.admission.enter()).toBeUndefined();
  });

  it('shrinks the limit while admitted requests are slower than the target, never below its floor', () => {
    const h = harness({ maxInFlight: 400, minInFlight: 16, targetMs: 20 });
    let limits: number[] = [];
    for (let window = 0; window < 20; window++) {
      const { admitted } = h.burst(400);
      h.advance(101); // every request takes longer than the target
      for (const t of admitted) h.admission.leave(t);
      limits.push(h.admission.stats().limit);
    }
    expect(limits[1]!).toBeLessThan(400);
    expect(limits.at(-1)).toBe(16);
    expect([...limits].sort((a, b) => b - a)).toEqual(limits);

    // Healthy again under the same demand: the limit grows back to its bound.
    limits = [];
    for (let window = 0; window < 30; window++) {
      const { admitted } = h.burst(400);
      h.advance(5);
      for (const t of admitted) h.admission.leave(t);
      h.advance(96);
      h.burst(0);
      limits.push(h.admission.stats().limit);
    }
    expect(limits.at(-1)).toBe(400);
  });

  it('does not shrink for a few slow requests far under the limit', () => {
    const h = harness({ maxInFlight: 100, targetMs: 20 });
    const { admitted } = h.burst(2);
    h.advance(150);
    for (const t of admitted) h.admission.leave(t);
    h.advance(101);
    h.burst(0);
    expect(h.admission.stats().limit).toBe(100);
  });
});
