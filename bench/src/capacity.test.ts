import { describe, expect, it } from 'vitest';
import { fleetCores, predictionError, predictMicrosPerMessage, processCost } from './capacity.js';

describe('the capacity model', () => {
  // One process, 5 s: 100,000 messages at 20 µs each (2 s of CPU), 0.1 core of it fixed (0.5 s).
  const one = { processes: 1, messages: 100_000, cpuMicrosPerMessage: 20, idleCoresPerProcess: 0.1 };

  it('splits a measured run into the fixed share and the cost per message', () => {
    const cost = processCost(one, 5)!;
    expect(cost.fixedCores).toBe(0.1);
    expect(cost.microsPerMessage).toBeCloseTo(15);
    expect(cost.messagesPerSecond).toBe(20_000);
  });

  it('predicts N processes as N fixed shares over the same messages', () => {
    const cost = processCost(one, 5)!;
    expect(predictMicrosPerMessage(cost, 1)).toBeCloseTo(20);
    // Three fixed shares: 0.3 core over 20,000 messages a second is 15 µs each, plus 15 µs.
    expect(predictMicrosPerMessage(cost, 3)).toBeCloseTo(30);
    expect(fleetCores(cost, 3, 20_000)).toBeCloseTo(0.6);
  });

  it('takes the fixed share of a process with a listener over one with nobody, when measured', () => {
    const cost = processCost({ ...one, listeningCoresPerProcess: 0.2 }, 5)!;
    expect(cost.fixedCores).toBe(0.2);
    expect(cost.microsPerMessage).toBeCloseTo(10);
    expect(predictMicrosPerMessage(cost, 2)).toBeCloseTo(30);
  });

  it('measures the error against what was measured, and says nothing without a measurement', () => {
    expect(predictionError(30, 25)).toBeCloseTo(0.2);
    expect(predictionError(30, null)).toBeNull();
    expect(processCost({ ...one, cpuMicrosPerMessage: null }, 5)).toBeNull();
  });
});
