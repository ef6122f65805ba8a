// How long and how hard each scenario runs. `full` is the recorded run, every scenario (within 15
// minutes on 2 cores, quiet checks included); `quick` gives the headline figures (click throughput over
// the trivial route, click to screen, bursts) within 3 minutes.
export interface BenchSettings {
  profile: 'full' | 'quick';
  /** Registered load users (each HTTP connection and socket carries one's token). */
  users: number;
  /** Connection counts tried for clicks; the best one whose p99 stays under the latency bound is kept. */
  concurrencies: number[];
  p99BoundMs: number;
  stepDurationS: number;
  /** Click / trivial-route pairs run in alternation for the throughput ratio. */
  ratioPairs: number;
  warmupS: number;
  redisBenchmarkRequests: number;
  redisBenchmarkClients: number;
  socketCounts: number[];
  /** Sockets per load-generator process. */
  socketsPerWorker: number;
  connectConcurrency: number;
  fanoutDurationS: number;
  /** Seconds the fan-out baseline (a bare `ws` server, same sockets) is measured at each count; 0: none. */
  fanoutBaselineS: number;
  clickConnectionsAtHalfRate: number;
  /**
   * Clicks per second asked while the clients watch (BENCH_FANOUT_CLICKS); unset: half the measured
   * maximum, or 200 when the throughput scenario did not run.
   */
  fanoutClickRate?: number;
  /**
   * BENCH_REALTIME_CPU_PROF: a directory where each fan-out count's realtime process, and each realtime
   * process of the fleet scenario, writes a CPU profile.
   */
  realtimeCpuProfDir?: string;
  roundEndSockets: number;
  /** Clicks between the restart of the game and the round's end. */
  roundEndClicks: number;
  broadcastHz: number;
  /** Where the sockets connect: the gateway (as browsers do) or the realtime service directly. */
  socketVia: 'gateway' | 'realtime';
  /** The socket clients: Socket.IO's protocol on bare websockets, or the full socket.io-client. */
  socketClient: 'protocol' | 'socket.io';
  /** Which scenarios run (BENCH_SCENARIOS), in the order of the run. */
  scenarios: Scenario[];
  /** The fresh session check's cost: accounts seeded and queries of each kind (with and without it). */
  sessionCheck: { accounts: number; queries: number; rounds: number };
  /** The fresh authority check's cost: requests of each kind (with and without it), and clicks watched. */
  freshAuthority: { requests: number; rounds: number; clicks: number };
  /** Lighthouse runs per page (BENCH_LIGHTHOUSE_RUNS); each figure is the median of them. */
  lighthouseRuns: number;
  /** BENCH_LIGHTHOUSE_REPORTS: a directory where each Lighthouse run's whole report (JSON) is written. */
  lighthouseReportsDir?: string;
  openLoop: {
    /**
     * Where the listening sockets connect, one sweep each: as production routes them (straight to
     * realtime); BENCH_OPEN_LOOP_VIA=realtime,gateway adds the gateway's tunnel, as `npm start` serves them.
     */
    via: ('realtime' | 'gateway')[];
    listeners: number;
    /** Listening sockets that time every update (the rest only listen). */
    timed: number;
    startRate: number;
    /** The sweep stops doubling here even if the system still holds. */
    maxRate: number;
    stepDurationS: number;
    /** Pause between steps so one step's backlog does not start the next. */
    restS: number;
    bisections: number;
    overloadFactors: number[];
    /** Pooled keep-alive connections of the click generator. */
    connections: number;
    clickTimeoutMs: number;
  };
  /** Players beside 64 connections that ignore Retry-After (scenarios/refusals.ts). */
  refusals: {
    /**
     * The socket paths it runs on (BENCH_REFUSALS_VIA), one run each: the full run's is production's
     * (straight to realtime); the listeners' path is beside the point of a figure about the click path.
     */
    via: ('realtime' | 'gateway')[];
    /** The players' clicks per second, open loop, well under the knee: a few presses a second per token. */
    playerRate: number;
    phaseS: number;
    listeners: number;
  };
  /** The crowd scenarios (scenarios/crowd.ts): clients per scenario, the rollout's clicks, the fleet's window. */
  crowd: {
    stormClients: number;
    rolloutClients: number;
    rolloutClickRate: number;
    fleetClients: number;
    fleetDurationS: number;
    /** BENCH_FLEET_SHARDED=1: a third fleet run, three processes on the sharded Redis adapter. */
    fleetSharded: boolean;
  };
  /** The bursts scenario (scenarios/bursts.ts): tries of each burst, seconds of each polite or overload step. */
  bursts: { tries: number; stepS: number };
  /**
   * The quiet machine each scenario starts on (scenario-start.ts): the CPUs' idle share a sample of
   * `sampleS` must reach (BENCH_QUIET_IDLE, percent; 0 checks nothing), Lighthouse's level, and the
   * longest wait for it (BENCH_QUIET_WAIT_S) before the scenario is reported invalid.
   */
  quiet: { minIdlePercent: number; lighthouseMinIdlePercent: number; sampleS: number; maxWaitS: number };
}

export const SCENARIOS = [
  'throughput',
  'open-loop',
  'refusals',
  'fanout',
  'round-end',
  'web-mix',
  'lighthouse',
  'session-check',
  'storm',
  'rollout',
  'fleet',
  'fresh-authority',
  'bursts',
] as const;
export type Scenario = (typeof SCENARIOS)[number];

/** The headline figures `--quick` gives: click throughput over the trivial route, click to screen, bursts. */
export const QUICK_SCENARIOS: Scenario[] = ['throughput', 'fanout', 'bursts'];

const full: BenchSettings = {
  profile: 'full',
  lighthouseRuns: 3,
  users: 200,
  concurrencies: [8, 16, 32, 64],
  p99BoundMs: 50,
  stepDurationS: 4,
  ratioPairs: 2,
  warmupS: 2,
  redisBenchmarkRequests: 200_000,
  redisBenchmarkClients: 50,
  socketCounts: [1000, 2000, 5000],
  socketsPerWorker: 1000,
  connectConcurrency: 40,
  fanoutDurationS: 5,
  fanoutBaselineS: 3,
  clickConnectionsAtHalfRate: 32,
  roundEndSockets: 2000,
  roundEndClicks: 3000,
  broadcastHz: 10,
  socketVia: 'gateway',
  socketClient: 'protocol',
  scenarios: [...SCENARIOS],
  sessionCheck: { accounts: 5_000, queries: 20_000, rounds: 10 },
  freshAuthority: { requests: 4_000, rounds: 10, clicks: 500 },
  openLoop: {
    via: ['realtime'],
    listeners: 1000,
    timed: 50,
    startRate: 1000,
    maxRate: 64_000,
    stepDurationS: 3,
    restS: 1,
    bisections: 2,
    overloadFactors: [2, 3],
    connections: 1000,
    clickTimeoutMs: 10_000,
  },
  refusals: { via: ['realtime'], playerRate: 400, phaseS: 5, listeners: 1000 },
  crowd: {
    stormClients: 2000,
    rolloutClients: 1000,
    rolloutClickRate: 200,
    fleetClients: 2000,
    fleetDurationS: 5,
    fleetSharded: false,
  },
  bursts: { tries: 2, stepS: 4 },
  quiet: { minIdlePercent: 80, lighthouseMinIdlePercent: 90, sampleS: 2, maxWaitS: 60 },
};

const quick: BenchSettings = {
  ...full,
  profile: 'quick',
  scenarios: QUICK_SCENARIOS,
  users: 40,
  sessionCheck: { accounts: 1_000, queries: 4_000, rounds: 4 },
  freshAuthority: { requests: 1_000, rounds: 4, clicks: 200 },
  concurrencies: [8, 16],
  stepDurationS: 3,
  ratioPairs: 1,
  warmupS: 1,
  redisBenchmarkRequests: 50_000,
  socketCounts: [100, 300],
  socketsPerWorker: 200,
  fanoutDurationS: 4,
  fanoutBaselineS: 2,
  clickConnectionsAtHalfRate: 8,
  roundEndSockets: 200,
  roundEndClicks: 500,
  openLoop: {
    ...full.openLoop,
    listeners: 200,
    timed: 20,
    startRate: 250,
    maxRate: 4000,
    stepDurationS: 2,
    bisections: 1,
    connections: 256,
    clickTimeoutMs: 5000,
  },
  refusals: { via: ['realtime'], playerRate: 100, phaseS: 4, listeners: 200 },
  crowd: {
    stormClients: 100,
    rolloutClients: 100,
    rolloutClickRate: 200,
    fleetClients: 100,
    fleetDurationS: 4,
    fleetSharded: false,
  },
  bursts: { tries: 1, stepS: 3 },
  quiet: { ...full.quiet, maxWaitS: 30 },
};

/** A comma-separated list of socket paths (realtime, gateway), or an error naming the variable. */
function viaList(name: string, value: string): ('realtime' | 'gateway')[] {
  const via = value.split(',').map((v) => v.trim());
  if (via.length === 0 || via.some((v) => v !== 'gateway' && v !== 'realtime'))
    throw new Error(`${name} must list realtime and/or gateway, e.g. realtime,gateway`);
  return via as ('realtime' | 'gateway')[];
}

/** An integer within [min, max], or an error naming the variable and what it accepts. */
function integerIn(name: string, value: string, min: number, max: number, what: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`${name} must be an integer from ${min} to ${max} (${what})`);
  return n;
}

/** The quiet check's overrides: BENCH_QUIET_IDLE (percent idle, 0: no check) and BENCH_QUIET_WAIT_S. */
function quietSettings(base: BenchSettings['quiet'], env: NodeJS.ProcessEnv): BenchSettings['quiet'] {
  const quiet = { ...base };
  if (env.BENCH_QUIET_IDLE) {
    const level = integerIn('BENCH_QUIET_IDLE', env.BENCH_QUIET_IDLE, 0, 100, 'percent of CPU time idle');
    quiet.minIdlePercent = level;
    quiet.lighthouseMinIdlePercent = level === 0 ? 0 : Math.max(level, base.lighthouseMinIdlePercent);
  }
  if (env.BENCH_QUIET_WAIT_S)
    quiet.maxWaitS = integerIn('BENCH_QUIET_WAIT_S', env.BENCH_QUIET_WAIT_S, 2, 600, 'seconds');
  return quiet;
}

/** The scenarios `--scenarios=a,b` or BENCH_SCENARIOS names (the argument wins), or undefined. */
function scenarioList(argv: string[], env: NodeJS.ProcessEnv): Scenario[] | undefined {
  const given =
    argv.find((a) => a.startsWith('--scenarios='))?.slice('--scenarios='.length) ?? env.BENCH_SCENARIOS;
  if (!given) return undefined;
  const names = given.split(',').map((s) => s.trim());
  const unknown = names.filter((n) => !(SCENARIOS as readonly string[]).includes(n));
  if (unknown.length > 0)
    throw new Error(
      `BENCH_SCENARIOS must list some of ${SCENARIOS.join(', ')}; unknown: ${unknown.join(', ')}`,
    );
  return names as Scenario[];
}

/**
 * `--quick` (or BENCH_PROFILE=quick) for the short run; `--scenarios=open-loop,fanout` (or
 * BENCH_SCENARIOS) for a subset, e.g. to repeat one; BENCH_SOCKETS=500,1000, BENCH_SOCKET_VIA,
 * BENCH_SOCKET_CLIENT, BENCH_OPEN_LOOP_VIA, BENCH_REFUSALS_VIA, BENCH_FLEET_SHARDED, BENCH_QUIET_IDLE and
 * BENCH_QUIET_WAIT_S override.
 */
export function loadSettings(
  argv: string[] = process.argv.slice(2),
  env: NodeJS.ProcessEnv = process.env,
): BenchSettings {
  const profile = argv.includes('--quick') || env.BENCH_PROFILE === 'quick' ? quick : full;
  const settings = { ...profile, quiet: quietSettings(profile.quiet, env) };
  if (env.BENCH_SOCKETS) {
    const counts = env.BENCH_SOCKETS.split(',').map((s) => Number(s.trim()));
    if (counts.some((n) => !Number.isInteger(n) || n < 1))
      throw new Error('BENCH_SOCKETS must be comma-separated positive integers, e.g. 500,1000');
    settings.socketCounts = counts;
  }
  if (env.BENCH_OPEN_LOOP_VIA)
    settings.openLoop = {
      ...settings.openLoop,
      via: viaList('BENCH_OPEN_LOOP_VIA', env.BENCH_OPEN_LOOP_VIA),
    };
  if (env.BENCH_REFUSALS_VIA)
    settings.refusals = { ...settings.refusals, via: viaList('BENCH_REFUSALS_VIA', env.BENCH_REFUSALS_VIA) };
  if (env.BENCH_SOCKET_VIA) {
    if (env.BENCH_SOCKET_VIA !== 'gateway' && env.BENCH_SOCKET_VIA !== 'realtime')
      throw new Error('BENCH_SOCKET_VIA must be gateway or realtime');
    settings.socketVia = env.BENCH_SOCKET_VIA;
  }
  if (env.BENCH_SOCKET_CLIENT) {
    if (env.BENCH_SOCKET_CLIENT !== 'protocol' && env.BENCH_SOCKET_CLIENT !== 'socket.io')
      throw new Error('BENCH_SOCKET_CLIENT must be protocol or socket.io');
    settings.socketClient = env.BENCH_SOCKET_CLIENT;
  }
  if (env.BENCH_FANOUT_CLICKS) {
    const rate = Number(env.BENCH_FANOUT_CLICKS);
    if (!Number.isInteger(rate) || rate < 1)
      throw new Error('BENCH_FANOUT_CLICKS must be a positive integer (clicks per second)');
    settings.fanoutClickRate = rate;
  }
  if (env.BENCH_REALTIME_CPU_PROF) settings.realtimeCpuProfDir = env.BENCH_REALTIME_CPU_PROF;
  if (env.BENCH_FLEET_SHARDED === '1') settings.crowd = { ...settings.crowd, fleetSharded: true };
  if (env.BENCH_LIGHTHOUSE_RUNS) {
    const runs = Number(env.BENCH_LIGHTHOUSE_RUNS);
    if (!Number.isInteger(runs) || runs < 1 || runs > 9)
      throw new Error(
        'BENCH_LIGHTHOUSE_RUNS must be an integer from 1 to 9 (runs per page; the median is kept)',
      );
    settings.lighthouseRuns = runs;
  }
  if (env.BENCH_LIGHTHOUSE_REPORTS) settings.lighthouseReportsDir = env.BENCH_LIGHTHOUSE_REPORTS;
  settings.scenarios = scenarioList(argv, env) ?? settings.scenarios;
  return settings;
}
