// The event loop's lag as the admission reads it: how late the loop runs, including a turn still under way.
import { describe, expect, it } from 'vitest';
import { watchLoopLag } from '../src/loop-lag.js';

function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // The loop is held: nothing else runs.
  }
}

describe('watchLoopLag', () => {
  it('reads a turn of the loop that is still under way as lag', async () => {
    const lag = watchLoopLag(10);
    try {
      await new Promise((r) => setTimeout(r, 30));
      // Held for 200 ms: its timer, last fired at most 10 ms before, is overdue by at least 190 ms,
      // however slow the machine. (Once the loop is free the lag falls back: not asserted, as how soon
      // depends on the machine.)
      busy(200);
      expect(lag.now()).toBeGreaterThanOrEqual(190);
    } finally {
      lag.stop();
    }
  });

  it('says when the loop last kept time: now while it does, the last on-time turn while it is held', async () => {
    const lag = watchLoopLag(10, undefined, 50);
    try {
      await new Promise((r) => setTimeout(r, 30));
      const before = performance.now();
      busy(200);
      // Held for 200 ms: the loop last kept time before the hold began.
      expect(lag.onTimeAt()).toBeLessThanOrEqual(before);
      // Free again: the next turns keep time (each waits for the loop to be idle, however slow the machine).
      await until(() => performance.now() - lag.onTimeAt() <= 50);
    } finally {
      lag.stop();
    }
  });
});

/** Waits for `condition`, a turn of the loop at a time. */
async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((r) => setTimeout(r, 10));
}
