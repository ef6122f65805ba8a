// `npm run bench`: starts the system as `npm start` does (with load-test settings), runs every scenario
// (each on a quiet machine with tokens minted for it, or recorded invalid: scenario-start.ts), prints the
// figures beside their targets and writes bench/results/latest.{json,md} and cost-curve.png.
// The load stays on loopback, is bounded in size and time, and everything started here is stopped here.
import { spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { startBenchSystem, type BenchSystem } from './bench-system.js';
import { describeMachine, finishMachine, redisVersion } from './machine.js';
import { loadAverage } from './proc.js';
import { buildResults, type Machine } from './report.js';
import { noFindings, runScenarios } from './scenario-runners.js';
import { loadSettings } from './settings.js';
import { stopAllWorkers } from './workers.js';
import { writeResults } from './write-results.js';

const root = process.cwd();
const resultsDir = join(root, 'bench', 'results');
const log = (line: string) => console.log(line);

/** Raises the open-files limit for this run and its children when the hard limit allows (a child shell's ulimit). */
function raiseFileLimit(): number | null {
  const probe = spawnSync('sh', ['-c', 'ulimit -Sn; ulimit -Hn'], { encoding: 'utf8' });
  const [soft, hard] = probe.stdout
    .trim()
    .split('\n')
    .map((v) => (v === 'unlimited' ? Infinity : Number(v)));
  if (soft === undefined || hard === undefined || !Number.isFinite(soft)) return null;
  const wanted = Math.min(hard, 65_536);
  if (soft >= wanted || process.env.BENCH_FD_RAISED) return soft;
  const child = spawn(
    'sh',
    [
      '-c',
      `ulimit -n ${wanted} && exec "$@"`,
      'sh',
      process.execPath,
      ...process.execArgv,
      ...process.argv.slice(1),
    ],
    {
      stdio: 'inherit',
      env: { ...process.env, BENCH_FD_RAISED: '1' },
    },
  );
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
  return -1;
}

interface RunGuard {
  /** The system, once started: stopped with the load generators. */
  system?: BenchSystem;
  /** Stops the load generators and the system (once), and the watchdog. */
  stop(): Promise<void>;
}

/** Nothing outlives the run: a signal or a run that overstays its bound stops everything it started. */
function guardRun(): RunGuard {
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await stopAllWorkers();
    await guard.system?.stop();
  };
  const watchdog = setTimeout(() => {
    console.error('[bench] the run took longer than 25 minutes; stopping');
    void shutdown().finally(() => process.exit(1));
  }, 25 * 60_000);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => void shutdown().finally(() => process.exit(130)));
  }
  const guard: RunGuard = {
    async stop() {
      await shutdown();
      clearTimeout(watchdog);
    },
  };
  return guard;
}

async function main(): Promise<void> {
  const fileLimit = raiseFileLimit();
  if (fileLimit === -1) return; // the run continues in the child shell with the higher limit
  const settings = loadSettings();
  const started = Date.now();
  const date = new Date();
  const loadAtStart = loadAverage();
  log(
    `[bench] ${settings.profile} run; load average ${loadAtStart.join(' ')}; open files limit ${fileLimit ?? 'unknown'}`,
  );

  const guard = guardRun();
  const errors: string[] = [];
  const found = noFindings();
  let machine: Machine | undefined;
  try {
    const bs = (guard.system = await startBenchSystem(root, settings, log));
    machine = describeMachine(settings, loadAtStart, fileLimit, await redisVersion(bs.redisUrl));
    await runScenarios(root, bs, settings, log, errors, found);
  } catch (error) {
    errors.push(`system: ${(error as Error).message}`);
    log(`[bench] ${(error as Error).stack}`);
  } finally {
    await guard.stop();
  }

  machine ??= describeMachine(settings, loadAtStart, fileLimit, 'unknown');
  finishMachine(machine, loadAverage());
  const durationS = (Date.now() - started) / 1000;
  const results = buildResults({ date, machine, settings, ...found, errors, durationS });
  const { outDir, table } = writeResults(resultsDir, results, found.fanout, settings, log);
  console.log('\n' + table);
  for (const s of found.scenarios.filter((r) => r.invalid))
    log(`[bench] ${s.scenario} is invalid, not measured: ${s.invalid}`);
  log(
    `[bench] wrote ${outDir}/latest.json, latest.md and cost-curve.png in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  const nothingMeasured = !found.throughput && found.openLoop.length === 0 && found.fanout.length === 0;
  process.exit(errors.length > 0 && nothingMeasured ? 1 : 0);
}

await main();
