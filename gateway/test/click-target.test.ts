// The gateway's default click latency target, against the two loads it must tell apart (on a clock
// the test moves): a fan-out tick on the same cores delays the clicks that arrive during it by 20-40 ms
// every 100 ms, which is no queue and must refuse nothing; a standing queue, every click slow, must
// still be refused. With a 25 ms target the first was read as overload and the limit refused clicks
// while click to screen held (docs/performance.md, "The latency target, the tunnel and the generator").
import { Admission } from '@omc/service-kit';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';

function clickPath() {
  const config = loadConfig({});
  let now = 0;
  const admission = new Admission({
    targetMs: config.CLICK_TARGET_MS,
    maxInFlight: config.CLICK_MAX_IN_FLIGHT,
    now: () => now,
  });
  return {
    admission,
    /** One 100 ms window: `n` clicks arrive; `slowShare` of them take `slowMs`, the rest 5 ms. */
    window(n: number, slowShare: number, slowMs: number): number {
      const admitted: number[] = [];
      let refused = 0;
      for (let i = 0; i < n; i++) {
        const at = admission.enter();
        if (at === undefined) refused += 1;
        else admitted.push(at);
      }
      const fast = admitted.length - Math.round(admitted.length * slowShare);
      now += 5;
      for (const at of admitted.slice(0, fast)) admission.leave(at);
      now += slowMs - 5;
      for (const at of admitted.slice(fast)) admission.leave(at);
      now += 101 - slowMs;
      return refused;
    },
  };
}

describe("the gateway's click latency target", () => {
  it('refuses nothing while a fan-out tick delays a third of the clicks by 40 ms every window', () => {
    const path = clickPath();
    let refused = 0;
    for (let w = 0; w < 50; w++) refused += path.window(300, 0.3, 40);
    expect(refused).toBe(0);
    expect(path.admission.stats().limit).toBe(loadConfig({}).CLICK_MAX_IN_FLIGHT);
  });

  it('still refuses a standing queue: every click slower than the target', () => {
    const path = clickPath();
    let refused = 0;
    for (let w = 0; w < 20; w++) refused += path.window(600, 1, 90);
    expect(refused).toBeGreaterThan(0);
    expect(path.admission.stats().limit).toBeLessThan(loadConfig({}).CLICK_MAX_IN_FLIGHT);
  });
});
