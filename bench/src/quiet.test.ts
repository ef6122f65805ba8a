import { describe, expect, it } from 'vitest';
import {
  groupMembers,
  idlePercent,
  leftoverProcesses,
  parseCpuTimes,
  parseStatLine,
  waitForQuiet,
  type ProcEntry,
  type QuietIo,
} from './quiet.js';
import { quietOptions } from './scenario-start.js';
import { loadSettings } from './settings.js';

/** /proc/stat's text with the given idle and busy jiffies on its cpu line. */
const stat = (idle: number, busy: number) =>
  `cpu  ${busy} 0 0 ${idle} 0 0 0 0 0 0\ncpu0 1 0 0 1 0 0 0 0 0 0\nintr 1\n`;

/**
 * A stand-in for /proc/stat and the clock: each sample spends 200 jiffies in all, `idleShares[i]` of
 * them idle, and advances the clock by the sample's length. No real time passes.
 */
function fakeIo(idleShares: number[]): QuietIo & { reads: number } {
  let idle = 0;
  let busy = 0;
  let clock = 0;
  let sample = 0;
  const io = {
    reads: 0,
    readStat() {
      io.reads += 1;
      return stat(idle, busy);
    },
    async sleep(ms: number) {
      const share = idleShares[Math.min(sample++, idleShares.length - 1)]!;
      idle += 200 * share;
      busy += 200 * (1 - share);
      clock += ms;
    },
    now: () => clock,
  };
  return io;
}

describe('the CPUs idle share from /proc/stat', () => {
  it('counts idle and iowait as idle, everything else as busy', () => {
    expect(parseCpuTimes('cpu  10 2 3 80 5 0 0 0 0 0\n')).toEqual({ idle: 85, total: 100 });
    expect(() => parseCpuTimes('intr 1\n')).toThrow(/no cpu line/);
  });

  it('is the idle part of the time between two readings, in percent', () => {
    expect(idlePercent({ idle: 100, total: 200 }, { idle: 190, total: 300 })).toBe(90);
    expect(idlePercent({ idle: 100, total: 200 }, { idle: 100, total: 200 })).toBeNull();
  });
});

describe('waiting for a quiet machine', () => {
  const options = { minIdlePercent: 80, sampleMs: 2000, maxWaitMs: 10_000 };

  it('is quiet at the first sample that reaches the level', async () => {
    const check = await waitForQuiet(options, fakeIo([0.5, 0.7, 0.85, 0.95]));
    expect(check.quiet).toBe(true);
    expect(check.samples).toEqual([50, 70, 85]);
    expect(check.idlePercent).toBe(85);
    expect(check.waitedMs).toBe(6000);
  });

  it('gives up within the wait and says how idle the machine was', async () => {
    const check = await waitForQuiet(options, fakeIo([0.4]));
    expect(check.quiet).toBe(false);
    expect(check.samples).toHaveLength(5);
    expect(check.waitedMs).toBeLessThanOrEqual(options.maxWaitMs);
    expect(check.reason).toBe('the CPUs were 40 % idle, under the 80 % asked, after 10 s of waiting');
  });

  it('with a level of 0 checks nothing but still reads the level once', async () => {
    const io = fakeIo([0.1]);
    const check = await waitForQuiet({ ...options, minIdlePercent: 0 }, io);
    expect(check).toMatchObject({ quiet: true, idlePercent: 10, samples: [10] });
    expect(io.reads).toBe(2);
  });
});

describe('the quiet level each scenario asks', () => {
  it('is higher for Lighthouse, whose simulated slowdown multiplies any other load', () => {
    const settings = loadSettings([], {});
    expect(quietOptions(settings, 'storm')).toEqual({
      minIdlePercent: 80,
      sampleMs: 2000,
      maxWaitMs: 60_000,
    });
    expect(quietOptions(settings, 'lighthouse').minIdlePercent).toBe(90);
  });

  it('follows BENCH_QUIET_IDLE and BENCH_QUIET_WAIT_S; 0 turns the check off for every scenario', () => {
    const off = loadSettings([], { BENCH_QUIET_IDLE: '0' });
    expect(quietOptions(off, 'lighthouse').minIdlePercent).toBe(0);
    expect(quietOptions(off, 'throughput').minIdlePercent).toBe(0);
    const strict = loadSettings([], { BENCH_QUIET_IDLE: '95', BENCH_QUIET_WAIT_S: '30' });
    expect(quietOptions(strict, 'lighthouse')).toMatchObject({ minIdlePercent: 95, maxWaitMs: 30_000 });
    expect(() => loadSettings([], { BENCH_QUIET_IDLE: '101' })).toThrow(/BENCH_QUIET_IDLE/);
    expect(() => loadSettings([], { BENCH_QUIET_WAIT_S: 'soon' })).toThrow(/BENCH_QUIET_WAIT_S/);
  });
});

describe('processes left by an earlier scenario', () => {
  const entry = (pid: number, ppid: number, command: string, state = 'S', pgrp = pid): ProcEntry => ({
    pid,
    ppid,
    pgrp,
    state,
    command,
  });
  const table = [
    entry(100, 1, 'node bench/src/run.ts'),
    entry(200, 100, 'postgres -D servers/pg'),
    entry(201, 200, 'postgres: checkpointer'),
    entry(210, 100, 'node src/main.ts (gateway)'),
    entry(300, 100, '/usr/bin/chromium --headless'),
    entry(301, 300, '/usr/lib/chromium/chromium --type=renderer'),
    entry(400, 100, 'node crowd-worker.ts', 'Z'),
    entry(500, 1, 'someone else'),
  ];

  it('are the live processes under the run outside the standing ones and their own children', () => {
    const found = leftoverProcesses(table, 100, new Set([200, 210]));
    expect(found.map((p) => p.pid)).toEqual([300, 301]);
  });

  it('are none when everything under the run is standing', () => {
    expect(leftoverProcesses(table.slice(0, 4), 100, new Set([200, 210]))).toEqual([]);
  });

  it('are read from /proc/<pid>/stat, whose command name may hold spaces and parentheses', () => {
    expect(parseStatLine('4242 (node (crowd) x) S 4100 4200 4242 0 -1 4194560')).toEqual({
      pid: 4242,
      comm: 'node (crowd) x',
      state: 'S',
      ppid: 4100,
      pgrp: 4200,
    });
  });

  it("of a browser's group are its live members, wherever they were reparented", () => {
    const browser = [
      entry(300, 100, '/usr/bin/chromium --headless'),
      entry(301, 1, 'chromium --type=zygote', 'S', 300),
      entry(302, 1, 'chromium --type=renderer', 'Z', 300),
      entry(303, 1, 'someone else', 'S', 303),
    ];
    expect(groupMembers(browser, 300).map((p) => p.pid)).toEqual([300, 301]);
  });
});
