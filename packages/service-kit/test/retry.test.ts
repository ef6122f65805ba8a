// The one backoff: each wait is random below a ceiling that doubles per attempt up to the policy's cap.
import { describe, expect, it } from 'vitest';
import { backoffDelay, RETRY_POLICIES } from '../src/retry.js';

describe('backoffDelay', () => {
  const policy = { baseMs: 100, capMs: 1000 };

  it('doubles the ceiling per attempt and stops at the cap', () => {
    const ceiling = (attempt: number) => backoffDelay(policy, attempt, () => 0.999999) + 1;
    expect([0, 1, 2, 3, 4, 5, 40].map(ceiling)).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it('waits anywhere from nothing to the ceiling (full jitter)', () => {
    expect(backoffDelay(policy, 3, () => 0)).toBe(0);
    expect(backoffDelay(policy, 3, () => 0.5)).toBe(400);
  });

  it('names every policy with a cap no smaller than its base', () => {
    for (const [name, p] of Object.entries(RETRY_POLICIES))
      expect(p.capMs, name).toBeGreaterThanOrEqual(p.baseMs);
  });
});
