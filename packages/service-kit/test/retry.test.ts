// The one backoff: each wait is random below a ceiling that doubles per attempt up to the policy's cap.
import { describe, expect, it } from 'vitest';
import { backoffDelay, pause, RETRY_POLICIES } from '../src/retry.js';

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

describe('pause', () => {
  it('ends at once when its signal aborts, so a stopping loop does not wait out its backoff', async () => {
    const controller = new AbortController();
    let ended = false;
    const waiting = pause(60_000, controller.signal).then(() => (ended = true));
    await Promise.resolve();
    expect(ended).toBe(false);
    controller.abort();
    await waiting;
    expect(ended).toBe(true);
  });
});
