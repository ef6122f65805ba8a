import { describe, expect, it } from 'vitest';
import { budgetTable, buildResults, markdown, type Machine } from './report.js';
import type { ScenarioRecord } from './scenario-start.js';
import type { FanoutPoint } from './scenarios/fanout.js';
import type { OpenLoopPoint, OpenLoopScenario } from './scenarios/open-loop.js';
import type { RefusalsPhase, RefusalsScenario } from './scenarios/refusals.js';
import { loadSettings } from './settings.js';

const machine: Machine = {
  description: 'test machine',
  cpuModel: 'cpu',
  cpus: 2,
  memoryGiB: 1,
  os: 'Linux',
  node: 'v20',
  redis: '7',
  loadAverageAtStart: [0, 0, 0],
  socketVia: 'gateway',
  socketClient: 'protocol',
  fileDescriptorLimit: null,
};

const point = (connected: number, cpu: number, baseline: number | null): FanoutPoint => ({
  requested: connected,
  connected,
  failed: 0,
  connectErrors: {},
  clicksPerSecond: 1200,
  clickRateAsked: 2000,
  clicksRefusedPerSecond: 0,
  clickAnswerP99Ms: 9,
  clickToScreen: { p50Ms: 60, p99Ms: 140, samples: 100, missed: 0, beforeAck: 0 },
  observedTickMs: 100,
  tickWriteMs: { p50: 25, p99: 50 },
  messages: connected * 100,
  messagesPerSecond: connected * 10,
  realtimeCpuSeconds: 1,
  cpuMicrosPerMessage: cpu,
  realtimeCpuShare: 0.1,
  memoryPerSocketBytes: 5000,
  realtimeRssBytes: 1e8,
  bytesPerSocketPerSecond: 950,
  bytesExact: true,
  coresByProcess: { realtime: 0.1 },
  stages: [
    { stage: 'publish slot', budgetMs: 100, p50Ms: 50, p99Ms: 100, samples: 50 },
    { stage: 'socket writes', budgetMs: 5, p50Ms: 2.5, p99Ms: null, samples: 0 },
  ],
  baseline:
    baseline === null
      ? null
      : { connected, messagesPerSecond: connected * 10, cpuMicrosPerMessage: baseline },
  cpuRatioToBaseline: baseline === null ? null : cpu / baseline,
});

describe('the fan-out figures in the report', () => {
  const settings = loadSettings([], { BENCH_SCENARIOS: 'fanout', BENCH_FANOUT_CLICKS: '2000' });
  const results = buildResults({
    date: new Date('2026-11-24T21:00:00Z'),
    machine,
    settings,
    fanout: [point(500, 12, 10), point(5000, 9, null)],
    errors: [],
    durationS: 60,
  });

  it('prints the CPU per message beside the target, with its ratio to the bare ws baseline', () => {
    const at500 = results.checks.find((c) =>
      c.figure.startsWith('Realtime CPU per delivered message at 500'),
    )!;
    expect(at500).toMatchObject({ value: '12 µs (1.2× 10 µs)', target: '<= 10 µs', met: false });
    const at5000 = results.checks.find((c) =>
      c.figure.startsWith('Realtime CPU per delivered message at 5000'),
    )!;
    expect(at5000).toMatchObject({ value: '9 µs', met: true });
    expect(results.cpuRatioToBaseline).toEqual({ '500': 1.2, '5000': null });
  });

  it('checks the p99 at 5,000 clients with the clicks it took, and the bytes per socket', () => {
    const largest = results.checks.find((c) =>
      c.figure.startsWith('Click to screen p99 at 5000 clients, with'),
    )!;
    expect(largest).toMatchObject({ value: '140 ms at 1200 clicks/s', met: true });
    expect(results.checks.filter((c) => c.figure.startsWith('Bytes per second per socket'))).toHaveLength(2);
    const table = markdown(results);
    expect(table).toContain('clicks asked at 2000/s');
    expect(table).toContain('| 12 µs | 10 µs | 1.2 |');
    expect(table).toContain('| 100 ms | 25 / 50 ms |');
  });
});

describe('the latency budget in the report', () => {
  it("prints each stage's p50 / p99 beside its budget at each client count, and the whole", () => {
    const lines = budgetTable([point(1000, 5, null)], 100).join('\n');
    expect(lines).toContain('p99 ≤ 125 ms');
    expect(lines).toContain('| publish slot | 100 ms | 50 / 100 ms ok |');
    expect(lines).toContain('| socket writes | 5 ms | n/a |');
    expect(lines).toContain('| **click to screen, whole** | 125 ms | 60 / 140 ms over |');
  });
});

describe('the open-loop figures in the report', () => {
  const openPoint = (rate: number, accepted: number, held: boolean): OpenLoopPoint => ({
    rate,
    offered: rate * 5,
    acceptedPerSecond: accepted,
    refusedPerSecond: rate - accepted,
    refused: (rate - accepted) * 5,
    failed: 0,
    otherStatus: {},
    acceptedAnswerP99Ms: 40,
    refusalP99Ms: rate > accepted ? 30 : null,
    refusalsWithRetryAfter: (rate - accepted) * 5,
    refusalsWithMessage: (rate - accepted) * 5,
    clickToScreenP50Ms: 60,
    clickToScreenP99Ms: held ? 120 : 200,
    seenWithin2s: accepted / rate,
    counterDrift: 0,
    duplicateOrdinals: 0,
    sendLagP99Ms: 5,
    cpuMicrosPerClick: { gateway: 200, game: 70, redis: 10 },
    realtimeCpuMicrosPerMessage: 15,
    cores: { gateway: 0.5, generator: 0.15, sockets: 0.12 },
    held,
  });
  const sweep = (via: OpenLoopScenario['via'], knee: number): OpenLoopScenario => ({
    via,
    listeners: 1000,
    timed: 50,
    sweep: [openPoint(knee, knee, true), openPoint(knee * 2, knee * 1.5, false)],
    sustainedRate: knee,
    overloadBase: knee,
    overload: [2, 3].map((factor) => ({ factor, point: openPoint(knee * factor, knee * 1.5, false) })),
  });
  const results = buildResults({
    date: new Date('2026-11-25T00:00:00Z'),
    machine,
    settings: loadSettings([], { BENCH_SCENARIOS: 'open-loop' }),
    fanout: [],
    openLoop: [sweep('realtime', 3000), sweep('gateway', 1000)],
    errors: [],
    durationS: 60,
  });

  it('checks each sweep against the targets under its own name, knee and overload alike', () => {
    const sustained = results.checks.filter((c) => c.figure.includes('sustained clicks/s'));
    expect(sustained.map((c) => [c.figure.split(':')[0], c.value])).toEqual([
      ['Open loop, sockets straight to realtime', '3000'],
      ["Open loop, sockets through the gateway's tunnel", '1000'],
    ]);
    const goodput = results.checks.filter((c) => c.figure.endsWith('goodput / knee'));
    expect(goodput.map((c) => c.value)).toEqual(['1.5', '1.5', '1.5', '1.5']);
    expect(results.openLoop.map((o) => [o.via, o.sustainedRate])).toEqual([
      ['realtime', 3000],
      ['gateway', 1000],
    ]);
  });

  it("prints both sweeps' tables, with the load's own cores beside the servers'", () => {
    const table = markdown(results);
    expect(table).toContain('Sustained rate (the knee), sockets straight to realtime: 3000 clicks/s.');
    expect(table).toContain(
      "Sustained rate (the knee), sockets through the gateway's tunnel: 1000 clicks/s.",
    );
    expect(table).toContain('| 0.15 / 0.12 |');
  });
});

describe('players beside clients that ignore Retry-After', () => {
  const machine = {
    description: 'test machine',
    cpuModel: 'test',
    cpus: 2,
    memoryGiB: 4,
    os: 'Linux',
    node: 'v20',
    redis: '7',
    loadAverageAtStart: [0, 0, 0] as [number, number, number],
    socketVia: 'gateway',
    socketClient: 'protocol',
    fileDescriptorLimit: 1024,
  };
  const phase = (playersOk: number, players429: number, impolite429: number): RefusalsPhase => ({
    seconds: 4,
    playersOffered: 1200,
    playersOk,
    players503: 0,
    players429,
    impoliteOk: 0,
    impolite429,
    impolite503: 0,
    gatewayCpuS: 1,
  });
  const scenario = (via: RefusalsScenario['via'], beside: number): RefusalsScenario => ({
    via,
    listeners: 200,
    playerRate: 300,
    alone: phase(1200, 0, 0),
    beside: phase(beside, 0, 20_000),
    idle: phase(0, 0, 0),
    impoliteAlone: phase(0, 0, 40_000),
    goodputRatio: beside / 1200,
    cpuMicrosPerAccepted: 833,
    cpuMicrosPerRefusal: 25,
  });
  const results = buildResults({
    date: new Date('2026-11-26T00:00:00Z'),
    machine,
    settings: loadSettings([], { BENCH_SCENARIOS: 'refusals' }),
    fanout: [],
    refusals: [scenario('realtime', 1140), scenario('gateway', 1000)],
    errors: [],
    durationS: 60,
  });

  it('checks the goodput ratio on each socket path against 0.9, and prints each table', () => {
    const ratios = results.checks.filter((c) => c.figure.endsWith('goodput / alone (same run)'));
    expect(ratios.map((c) => [c.value, c.met])).toEqual([
      ['0.95', true],
      ['0.833', false],
    ]);
    expect(ratios[1]!.figure).toContain("through the gateway's tunnel");
    const table = markdown(results);
    expect(table).toContain('| players + 64 impolite | 250 | 0 | 0 |');
  });
});

describe('the Lighthouse figures in the report', () => {
  const run = (performance: number, fcp: number, load: number) => ({
    performance,
    firstContentfulPaintMs: fcp,
    largestContentfulPaintMs: fcp + 100,
    totalBlockingTimeMs: 100,
    speedIndexMs: fcp,
    javascriptBytes: 150_000,
    loadAverage1m: load,
  });
  const results = buildResults({
    date: new Date('2026-11-26T01:00:00Z'),
    machine,
    settings: loadSettings([], { BENCH_SCENARIOS: 'lighthouse' }),
    fanout: [],
    lighthouse: [
      {
        path: '/',
        performance: 0.96,
        firstContentfulPaintMs: 1900,
        largestContentfulPaintMs: 2000,
        totalBlockingTimeMs: 100,
        speedIndexMs: 1900,
        javascriptBytes: 150_000,
        runs: [run(0.9, 2500, 3.5), run(0.96, 1900, 1.2), run(0.97, 1200, 2)],
      },
    ],
    errors: [],
    durationS: 60,
  });

  it('checks each page against the targets, saying how many runs the median is of and how loaded the machine was', () => {
    const figure = (start: string) => results.checks.find((c) => c.figure.startsWith(start))!;
    expect(figure('Lighthouse /: performance')).toMatchObject({
      figure: 'Lighthouse /: performance (median of 3, load 1.2–3.5)',
      target: '≥ 0.95',
      met: true,
    });
    expect(figure('Lighthouse /: first contentful paint')).toMatchObject({ target: '≤ 1800 ms', met: false });
    expect(figure('Lighthouse /: largest contentful paint')).toMatchObject({ met: true });
  });

  it('runs each page three times unless told otherwise, and refuses a count it cannot use', () => {
    expect(loadSettings([], {}).lighthouseRuns).toBe(3);
    expect(loadSettings([], { BENCH_LIGHTHOUSE_RUNS: '5' }).lighthouseRuns).toBe(5);
    expect(() => loadSettings([], { BENCH_LIGHTHOUSE_RUNS: '0' })).toThrow(/BENCH_LIGHTHOUSE_RUNS/);
    expect(() => loadSettings([], { BENCH_LIGHTHOUSE_RUNS: 'many' })).toThrow(/BENCH_LIGHTHOUSE_RUNS/);
  });
});

describe('scenarios that did not start on a quiet machine', () => {
  const record = (
    scenario: ScenarioRecord['scenario'],
    extra: Partial<ScenarioRecord> = {},
  ): ScenarioRecord => ({
    scenario,
    idlePercent: 93.4,
    needPercent: 80,
    quietWaitS: 2,
    leftovers: [],
    durationS: 41.2,
    ...extra,
  });
  const results = buildResults({
    date: new Date('2026-11-29T03:00:00Z'),
    machine,
    settings: loadSettings([], { BENCH_SCENARIOS: 'throughput,lighthouse' }),
    fanout: [],
    scenarios: [
      record('throughput', { leftovers: ['4242 /usr/bin/chromium --headless'] }),
      record('lighthouse', {
        idlePercent: 61,
        needPercent: 90,
        quietWaitS: 60,
        durationS: null,
        invalid:
          'the machine was not quiet: the CPUs were 61 % idle, under the 90 % asked, after 60 s of waiting',
      }),
    ],
    errors: [],
    durationS: 120,
  });

  it('are reported invalid, with the reason, in place of their figures', () => {
    const invalid = results.checks.filter((c) => c.figure.startsWith('Scenario '));
    expect(invalid).toEqual([
      {
        figure: 'Scenario lighthouse: invalid, no figures',
        value:
          'the machine was not quiet: the CPUs were 61 % idle, under the 90 % asked, after 60 s of waiting',
        target: 'a quiet machine and valid tokens throughout',
        met: null,
      },
    ]);
    expect(results.checks.some((c) => c.figure.startsWith('Lighthouse'))).toBe(false);
  });

  it("list each scenario's idle level, wait, leftovers and duration in the tables", () => {
    const md = markdown(results);
    expect(md).toContain('| throughput | 93.4 % (≥ 80 %) | 2 s | 1 | 41.2 s | yes |');
    expect(md).toContain(
      '| lighthouse | 61 % (≥ 90 %) | 60 s | 0 | not run | **no**: the machine was not quiet',
    );
    expect(results.details.scenarios).toHaveLength(2);
  });
});
