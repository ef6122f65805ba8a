import { describe, expect, it } from 'vitest';
import { loadSettings, QUICK_SCENARIOS, SCENARIOS } from './settings.js';

describe('which scenarios a run measures', () => {
  it('is every scenario in the full run, the headline figures in the quick one', () => {
    expect(loadSettings([], {}).scenarios).toEqual([...SCENARIOS]);
    expect(loadSettings(['--quick'], {}).scenarios).toEqual(['throughput', 'fanout', 'bursts']);
    expect(loadSettings([], { BENCH_PROFILE: 'quick' }).scenarios).toEqual(QUICK_SCENARIOS);
  });

  it('is a subset given by --scenarios= or BENCH_SCENARIOS (the argument wins)', () => {
    expect(loadSettings(['--scenarios=storm,rollout'], {}).scenarios).toEqual(['storm', 'rollout']);
    expect(loadSettings([], { BENCH_SCENARIOS: 'lighthouse' }).scenarios).toEqual(['lighthouse']);
    expect(loadSettings(['--scenarios=fleet'], { BENCH_SCENARIOS: 'lighthouse' }).scenarios).toEqual([
      'fleet',
    ]);
    expect(() => loadSettings(['--scenarios=storm,stampede'], {})).toThrow(/unknown: stampede/);
  });

  it('runs refusals on the socket paths BENCH_REFUSALS_VIA names, production’s alone by default', () => {
    expect(loadSettings([], {}).refusals.via).toEqual(['realtime']);
    expect(loadSettings([], { BENCH_REFUSALS_VIA: 'realtime,gateway' }).refusals.via).toEqual([
      'realtime',
      'gateway',
    ]);
    expect(() => loadSettings([], { BENCH_REFUSALS_VIA: 'ingress' })).toThrow(/BENCH_REFUSALS_VIA/);
  });
});
