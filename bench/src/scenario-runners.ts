// The scenarios of `npm run bench`, in the order they run: each runner measures its scenario on the
// started system and adds what it found to the run's findings. A scenario that fails is recorded in the
// run's errors (and logged with its stack), and the run goes on with the next.
import type { BenchSystem } from './bench-system.js';
import type { Results } from './report.js';
import { measureBursts } from './scenarios/bursts.js';
import { measureCrowd } from './scenarios/crowd.js';
import { measureFanout } from './scenarios/fanout.js';
import { measureFreshAuthority } from './scenarios/fresh-authority.js';
import { measureLighthouse } from './scenarios/lighthouse.js';
import { measureOpenLoop } from './scenarios/open-loop.js';
import { measureRefusals, type RefusalsScenario } from './scenarios/refusals.js';
import { measureRoundEnd } from './scenarios/round-end.js';
import { measureSessionCheck } from './scenarios/session-check.js';
import { measureThroughput } from './scenarios/throughput.js';
import { measureWebMix } from './scenarios/web-mix.js';
import type { BenchSettings, Scenario } from './settings.js';
import { startWorker, stopAllWorkers, type Worker } from './workers.js';

/** What the scenarios found, as the results' details hold it (each list present, if empty). */
export type Findings = Omit<Results['details'], 'settings' | 'errors' | 'durationS' | 'refusals'> & {
  refusals: RefusalsScenario[];
};

export const noFindings = (): Findings => ({ openLoop: [], refusals: [], fanout: [], lighthouse: [] });

interface ScenarioRun {
  root: string;
  bs: BenchSystem;
  settings: BenchSettings;
  /** The HTTP load generator the click scenarios share. */
  loader: Worker;
  log: (line: string) => void;
  errors: string[];
  found: Findings;
}

const selected = (settings: BenchSettings, name: Scenario) => settings.scenarios.includes(name);

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
    if (options.stopWorkers) await stopAllWorkers().catch(() => undefined);
  }
}

/** Clicks at half the maximum rate while clients watch (a fixed modest rate if throughput failed). */
const halfRate = ({ settings, found }: ScenarioRun) =>
  settings.fanoutClickRate ?? Math.max(50, (found.throughput?.chosen.okPerSecond ?? 400) / 2);

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

/** Players beside clients that ignore Retry-After, on each socket path the open loop sweeps. */
async function refusals(run: ScenarioRun): Promise<void> {
  for (const via of run.settings.openLoop.via)
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

/** The crowd: realtime processes of its own, killed, restarted and added (scenarios/crowd.ts). */
async function crowd(run: ScenarioRun): Promise<void> {
  const { settings } = run;
  run.found.crowd = await measureCrowd(
    run.root,
    run.bs,
    settings,
    {
      storm: selected(settings, 'storm'),
      rollout: selected(settings, 'rollout'),
      fleet: selected(settings, 'fleet'),
    },
    run.log,
    run.errors,
  );
}

async function freshAuthority(run: ScenarioRun): Promise<void> {
  await attempt(run, 'fresh authority', async () => {
    run.found.freshAuthority = await measureFreshAuthority(run.bs, run.settings.freshAuthority, run.log);
  });
}

async function bursts(run: ScenarioRun): Promise<void> {
  await attempt(run, 'bursts', async () => {
    run.found.bursts = await measureBursts(run.bs, run.log);
  });
}

/** Each runner, in the order of the run, and the scenario names that select it. */
const RUNNERS: [names: Scenario[], runner: (run: ScenarioRun) => Promise<void>][] = [
  [['throughput'], throughput],
  [['open-loop'], openLoop],
  [['refusals'], refusals],
  [['fanout'], fanout],
  [['round-end'], roundEnd],
  [['web-mix'], webMix],
  [['lighthouse'], lighthouse],
  [['session-check'], sessionCheck],
  [['storm', 'rollout', 'fleet'], crowd],
  [['fresh-authority'], freshAuthority],
  [['bursts'], bursts],
];

/** Runs the scenarios the settings select, on the started system, adding what they find to `found`. */
export async function runScenarios(
  root: string,
  bs: BenchSystem,
  settings: BenchSettings,
  log: (line: string) => void,
  errors: string[],
  found: Findings,
): Promise<void> {
  const run: ScenarioRun = { root, bs, settings, loader: startWorker('http-load'), log, errors, found };
  for (const [names, runner] of RUNNERS)
    if (names.some((name) => selected(settings, name))) await runner(run);
  await run.loader.stop();
}
