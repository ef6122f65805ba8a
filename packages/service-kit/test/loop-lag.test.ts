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
  it('reads a turn of the loop that is still under way as lag, and the lag of the last turn after it', async () => {
    const lag = watchLoopLag(10);
    try {
      await new Promise((r) => setTimeout(r, 30));
      // Held for 200 ms: its timer is overdue by at least 200 - 10 ms, however slow the machine.
      busy(200);
      expect(lag.now()).toBeGreaterThanOrEqual(190);
      // The timer fires late once the loop is free, and remembers how late until it fires again.
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setTimeout(r, 0));
      expect(lag.now()).toBeGreaterThanOrEqual(150);
    } finally {
      lag.stop();
    }
  });
});
