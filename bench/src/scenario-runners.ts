// The scenarios of `npm run bench`, in the order they run: each runner measures its scenario on the
// started system and adds what it found to the run's findings. A scenario that fails is recorded in the
// run's errors (and logged with its stack), and the run goes on with the next.
import type { BenchSystem } from './bench-system.js';
import type { Results } from './report.js';
import { measureBursts } from './scenarios/bursts.js';
import { measureFleetCost, measureRollout, measureStorm } from './scenarios/crowd.js';
import { measureFanout } from './scenarios/fanout.js';
import { measureFreshAuthority } from './scenarios/fresh-authority.js';
import { ensureWinners, measureLighthouse } from './scenarios/lighthouse.js';
import { measureOpenLoop } from './scenarios/open-loop.js';
import { measureRefusals, type RefusalsScenario } from './scenarios/refusals.js';
import { measureRoundEnd } from './scenarios/round-end.js';
import { measureSessionCheck } from './scenarios/session-check.js';
import { measureThroughput } from './scenarios/throughput.js';
import { measureWebMix } from './scenarios/web-mix.js';
import { finishScenario, startScenario, unstarted, type ScenarioRecord } from './scenario-start.js';
import type { BenchSettings, Scenario } from './settings.js';
import { leftoverProcesses, readProcessTable, stopLeftovers } from './quiet.js';
import { startWorker, stopAllWorkers, type Worker } from './workers.js';

/** What the scenarios found, as the results' details hold it (each list present, if empty). */
export type Findings = Omit<
  Results['details'],
  'settings' | 'errors' | 'durationS' | 'refusals' | 'scenarios'
> & {
  refusals: RefusalsScenario[];
  scenarios: ScenarioRecord[];
};

export const noFindings = (): Findings => ({
  openLoop: [],
  refusals: [],
  fanout: [],
  lighthouse: [],
  scenarios: [],
});

/** Adds one scenario's findings to the run's. */
function merge(into: Findings, from: Findings): void {
  into.openLoop.push(...from.openLoop);
  into.refusals.push(...from.refusals);
  into.fanout.push(...from.fanout);
  into.lighthouse.push(...from.lighthouse);
  if (from.crowd) into.crowd = { ...into.crowd, ...from.crowd };
  for (const key of ['throughput', 'roundEnd', 'webMix', 'sessionCheck', 'freshAuthority', 'bursts'] as const)
    if (from[key] !== undefined) (into as Record<typeof key, unknown>)[key] = from[key];
}

interface ScenarioRun {
  root: string;
  bs: BenchSystem;
  settings: BenchSettings;
  /** The HTTP load generator the click scenarios share. */
  loader: Worker;
  log: (line: string) => void;
  errors: string[];
  /** What this scenario finds (added to the run's when it was valid). */
  found: Findings;
  /** What the earlier scenarios found (read only). */
  earlier: Findings;
}

/**
 * Runs one measurement. A failure is recorded as `label: message` and logged as `failed` (the label by
 * default) with its stack; with `stopWorkers`, every load generator is stopped, as a failed one may hang.
 */
async function attempt(
  run: ScenarioRun,
  label: string,
  measure: () => Promise<void>,
  options: { failed?: string; stopWorkers?: boolean } = {},
): Promise<void> {
  try {
    await measure();
  } catch (error) {
    run.errors.push(`${label}: ${(error as Error).message}`);
    run.log(`[bench] ${options.failed ?? label} failed: ${(error as Error).stack}`);
    if (options.stopWorkers) await stopAllWorkers([run.loader.pid]).catch(() => undefined);
  }
}

/** Clicks at half the maximum rate while clients watch (a fixed modest rate if throughput failed). */
const halfRate = ({ settings, earlier }: ScenarioRun) =>
  settings.fanoutClickRate ?? Math.max(50, (earlier.throughput?.chosen.okPerSecond ?? 400) / 2);

async function throughput(run: ScenarioRun): Promise<void> {
  await attempt(run, 'click throughput', async () => {
    run.found.throughput = await measureThroughput(run.bs, run.settings, run.loader, run.log);
  });
}

async function openLoop(run: ScenarioRun): Promise<void> {
  for (const via of run.settings.openLoop.via)
    await attempt(
      run,
      `open loop (sockets via ${via})`,
      async () => {
        run.found.openLoop.push(await measureOpenLoop(run.bs, run.settings, via, run.log));
      },
      { stopWorkers: true },
    );
}

/** Players beside clients that ignore Retry-After, on each socket path of its settings. */
async function refusals(run: ScenarioRun): Promise<void> {
  for (const via of run.settings.refusals.via)
    await attempt(
      run,
      `refusals (sockets via ${via})`,
      async () => {
        run.found.refusals.push(await measureRefusals(run.bs, run.settings, via, run.log));
      },
      { stopWorkers: true },
    );
}

async function fanout(run: ScenarioRun): Promise<void> {
  const clickRate = halfRate(run);
  // The fan-out's clicks leave on a fixed schedule, from the open-loop generator.
  const clicker = startWorker('open-loop');
  for (const count of run.settings.socketCounts)
    await attempt(
      run,
      `fan-out at ${count} clients`,
      async () => {
        run.found.fanout.push(await measureFanout(run.bs, run.settings, clicker, clickRate, count, run.log));
      },
      { failed: `fan-out at ${count}`, stopWorkers: true },
    );
  await clicker.stop();
}

async function roundEnd(run: ScenarioRun): Promise<void> {
  await attempt(run, 'round end', async () => {
    run.found.roundEnd = await measureRoundEnd(run.bs, run.settings, run.loader, halfRate(run), run.log);
  });
}

async function webMix(run: ScenarioRun): Promise<void> {
  await attempt(run, 'web mix', async () => {
    run.found.webMix = await measureWebMix(
      run.root,
      run.bs,
      run.loader,
      { clickRate: Number(process.env.BENCH_WEB_MIX_CLICKS ?? 200), durationS: run.settings.fanoutDurationS },
      run.log,
    );
  });
}

async function lighthouse(run: ScenarioRun): Promise<void> {
  await attempt(run, 'lighthouse', async () => {
    run.found.lighthouse = await measureLighthouse(run.bs, run.log, {
      runs: run.settings.lighthouseRuns,
      reportsDir: run.settings.lighthouseReportsDir,
    });
  });
}

async function sessionCheck(run: ScenarioRun): Promise<void> {
  await attempt(run, 'session check', async () => {
    // On the system's PostgreSQL, in a database of its own, while the rest of the system is idle.
    run.found.sessionCheck = await measureSessionCheck(
      run.bs.system.infra.databaseUrl,
      run.settings.sessionCheck,
      run.log,
    );
  });
}

/** The crowd scenarios: realtime processes of their own, killed, restarted and added (scenarios/crowd.ts). */
async function storm(run: ScenarioRun): Promise<void> {
  await attempt(run, 'storm', async () => {
    const storm = await measureStorm(run.root, run.bs, run.settings.crowd.stormClients, run.log);
    run.found.crowd = { ...run.found.crowd, storm };
  });
}

async function rollout(run: ScenarioRun): Promise<void> {
  const { crowd } = run.settings;
  await attempt(run, 'rollout', async () => {
    const rollout = await measureRollout(
      run.root,
      run.bs,
      crowd.rolloutClients,
      crowd.rolloutClickRate,
      run.log,
    );
    run.found.crowd = { ...run.found.crowd, rollout };
  });
}

async function fleet(run: ScenarioRun): Promise<void> {
  const { crowd, realtimeCpuProfDir } = run.settings;
  await attempt(run, 'fleet', async () => {
    const fleet = await measureFleetCost(
      run.root,
      run.bs,
      crowd.fleetClients,
      crowd.fleetDurationS,
      crowd.fleetSharded,
      run.log,
      realtimeCpuProfDir,
    );
    run.found.crowd = { ...run.found.crowd, fleet };
  });
}

async function freshAuthority(run: ScenarioRun): Promise<void> {
  await attempt(run, 'fresh authority', async () => {
    run.found.freshAuthority = await measureFreshAuthority(run.bs, run.settings.freshAuthority, run.log);
  });
}

async function bursts(run: ScenarioRun): Promise<void> {
  await attempt(run, 'bursts', async () => {
    run.found.bursts = await measureBursts(run.bs, run.settings.bursts, run.log);
  });
}

type Step = (run: ScenarioRun) => Promise<void>;

/** Each scenario's runner, in the order of the run, and what must be in place before its quiet check. */
const RUNNERS: [name: Scenario, runner: Step, prepare?: Step][] = [
  ['throughput', throughput],
  ['open-loop', openLoop],
  ['refusals', refusals],
  ['fanout', fanout],
  ['round-end', roundEnd],
  ['web-mix', webMix],
  // The winners page is measured with a list: the rounds that fill it are played before the quiet check.
  ['lighthouse', lighthouse, (run) => ensureWinners(run.bs, run.log)],
  ['session-check', sessionCheck],
  ['storm', storm],
  ['rollout', rollout],
  ['fleet', fleet],
  ['fresh-authority', freshAuthority],
  ['bursts', bursts],
];

/**
 * Runs the scenarios the settings select, on the started system, adding what they find to `found`.
 * Each starts on a quiet machine with fresh tokens (scenario-start.ts) or is recorded invalid, unrun; one
 * that outlived its tokens is recorded invalid and its figures are dropped.
 */
export async function runScenarios(
  root: string,
  bs: BenchSystem,
  settings: BenchSettings,
  log: (line: string) => void,
  errors: string[],
  found: Findings,
): Promise<void> {
  const loader = startWorker('http-load');
  // The processes standing under this run before the first scenario (the system's servers, the load
  // generator), and the system's as they are now: anything else under the run was left by a scenario.
  const standingAtStart = new Set(
    readProcessTable()
      .filter((p) => p.ppid === process.pid)
      .map((p) => p.pid),
  );
  const standing = () => new Set([...standingAtStart, ...bs.pids(), loader.pid]);
  for (const [name, runner, prepare] of RUNNERS) {
    if (!settings.scenarios.includes(name)) continue;
    const run: ScenarioRun = { root, bs, settings, loader, log, errors, found: noFindings(), earlier: found };
    const start = await startScenario(
      name,
      bs,
      settings,
      standing,
      log,
      prepare && (() => prepare(run)),
    ).catch((error: Error) => {
      errors.push(`${name}: its start failed: ${error.message}`);
      log(`[bench] ${name}: its start failed: ${error.stack}`);
      return undefined;
    });
    if (!start || start.record.invalid) {
      const invalid = start?.record.invalid ?? 'its start failed (see the errors)';
      found.scenarios.push({ ...(start?.record ?? unstarted(name)), invalid });
      log(`[bench] ${name}: invalid, not measured: ${invalid}`);
      continue;
    }
    const startedAt = Date.now();
    await runner(run);
    const mine = run.found;
    const record = finishScenario(start, startedAt, Date.now());
    found.scenarios.push(record);
    if (record.invalid) log(`[bench] ${name}: invalid, figures dropped: ${record.invalid}`);
    else merge(found, mine);
    log(`[bench] ${name}: ${record.durationS} s`);
  }
  await loader.stop();
  // The last scenario has no successor to check after it.
  const left = leftoverProcesses(
    readProcessTable(),
    process.pid,
    new Set([...standingAtStart, ...bs.pids()]),
  );
  if (left.length > 0) {
    log(
      `[bench] processes of the last scenario still running, stopped now: ${left.map((p) => p.pid).join(', ')}`,
    );
    errors.push(
      `processes left running by the last scenario: ${left.map((p) => p.command.slice(0, 80)).join('; ')}`,
    );
    await stopLeftovers(left);
  }
}
