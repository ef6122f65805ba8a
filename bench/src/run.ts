// `npm run bench`: starts the system as `npm start` does (with load-test settings), runs every scenario,
// prints the figures beside their targets and writes bench/results/latest.{json,md} and cost-curve.png.
// The load stays on loopback, is bounded in size and time, and everything started here is stopped here.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { startBenchSystem, type BenchSystem } from './bench-system.js';
import { costCurveSvg, writePng } from './chart.js';
import { loadAverage } from './proc.js';
import { buildResults, markdown, TARGETS, type Machine } from './report.js';
import { measureFanout, type FanoutPoint } from './scenarios/fanout.js';
import { measureOpenLoop, type OpenLoopScenario } from './scenarios/open-loop.js';
import { measureRefusals, type RefusalsScenario } from './scenarios/refusals.js';
import { measureRoundEnd, type RoundEndResult } from './scenarios/round-end.js';
import { measureThroughput, type ThroughputResult } from './scenarios/throughput.js';
import { measureLighthouse, type LighthousePage } from './scenarios/lighthouse.js';
import { measureWebMix, type WebMixResult } from './scenarios/web-mix.js';
import { measureSessionCheck, type SessionCheckResult } from './scenarios/session-check.js';
import { measureCrowd, type CrowdResult } from './scenarios/crowd.js';
import { measureFreshAuthority, type FreshAuthorityResult } from './scenarios/fresh-authority.js';
import { measureBursts, type BurstsScenario } from './scenarios/bursts.js';
import { loadSettings, SCENARIOS } from './settings.js';
import { startWorker, stopAllWorkers } from './workers.js';

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

async function redisVersion(url: string): Promise<string> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1 });
  try {
    return /redis_version:(\S+)/.exec(await redis.info('server'))?.[1] ?? 'unknown';
  } finally {
    redis.disconnect();
  }
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

  let bs: BenchSystem | undefined;
  let stopping = false;
  const shutdown = async () => {
    if (stopping) return;
    stopping = true;
    await stopAllWorkers();
    await bs?.stop();
  };
  // Nothing outlives the run: a run that overstays its bound stops itself.
  const watchdog = setTimeout(() => {
    console.error('[bench] the run took longer than 20 minutes; stopping');
    void shutdown().finally(() => process.exit(1));
  }, 20 * 60_000);
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => void shutdown().finally(() => process.exit(130)));
  }

  const errors: string[] = [];
  let throughput: ThroughputResult | undefined;
  const fanout: FanoutPoint[] = [];
  let roundEnd: RoundEndResult | undefined;
  const openLoop: OpenLoopScenario[] = [];
  const refusals: RefusalsScenario[] = [];
  let webMix: WebMixResult | undefined;
  let lighthousePages: LighthousePage[] = [];
  let sessionCheck: SessionCheckResult | undefined;
  let crowd: CrowdResult | undefined;
  let freshAuthority: FreshAuthorityResult | undefined;
  let bursts: BurstsScenario | undefined;
  const runs = (name: (typeof settings.scenarios)[number]) => settings.scenarios.includes(name);
  let machine: Machine | undefined;
  try {
    bs = await startBenchSystem(root, settings, log);
    const cpuList = cpus();
    const redis = await redisVersion(bs.redisUrl);
    machine = {
      description: '',
      cpuModel: cpuList[0]?.model.trim() ?? 'unknown',
      cpus: cpuList.length,
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      os: `Linux ${release()}`,
      node: process.version,
      redis,
      loadAverageAtStart: loadAtStart,
      socketVia: settings.socketVia,
      socketClient: settings.socketClient,
      fileDescriptorLimit: fileLimit,
    };
    const loader = startWorker('http-load');

    if (runs('throughput')) {
      try {
        throughput = await measureThroughput(bs, settings, loader, log);
      } catch (error) {
        errors.push(`click throughput: ${(error as Error).message}`);
        log(`[bench] click throughput failed: ${(error as Error).stack}`);
      }
    }
    for (const via of runs('open-loop') ? settings.openLoop.via : []) {
      try {
        openLoop.push(await measureOpenLoop(bs, settings, via, log));
      } catch (error) {
        errors.push(`open loop (sockets via ${via}): ${(error as Error).message}`);
        log(`[bench] open loop (sockets via ${via}) failed: ${(error as Error).stack}`);
        await stopAllWorkers().catch(() => undefined);
      }
    }
    // Players beside clients that ignore Retry-After, on each socket path the open loop sweeps.
    for (const via of runs('refusals') ? settings.openLoop.via : []) {
      try {
        refusals.push(await measureRefusals(bs, settings, via, log));
      } catch (error) {
        errors.push(`refusals (sockets via ${via}): ${(error as Error).message}`);
        log(`[bench] refusals (sockets via ${via}) failed: ${(error as Error).stack}`);
        await stopAllWorkers().catch(() => undefined);
      }
    }
    // Clicks at half the maximum rate while clients watch (a fixed modest rate if throughput failed).
    const halfRate = settings.fanoutClickRate ?? Math.max(50, (throughput?.chosen.okPerSecond ?? 400) / 2);

    // The fan-out's clicks leave on a fixed schedule, from the open-loop generator.
    const clicker = startWorker('open-loop');
    for (const count of runs('fanout') ? settings.socketCounts : []) {
      try {
        fanout.push(await measureFanout(bs, settings, clicker, halfRate, count, log));
      } catch (error) {
        errors.push(`fan-out at ${count} clients: ${(error as Error).message}`);
        log(`[bench] fan-out at ${count} failed: ${(error as Error).stack}`);
        await stopAllWorkers().catch(() => undefined);
      }
    }
    await clicker.stop();
    if (runs('round-end')) {
      try {
        roundEnd = await measureRoundEnd(bs, settings, loader, halfRate, log);
      } catch (error) {
        errors.push(`round end: ${(error as Error).message}`);
        log(`[bench] round end failed: ${(error as Error).stack}`);
      }
    }
    if (runs('web-mix')) {
      try {
        webMix = await measureWebMix(
          root,
          bs,
          loader,
          { clickRate: Number(process.env.BENCH_WEB_MIX_CLICKS ?? 200), durationS: settings.fanoutDurationS },
          log,
        );
      } catch (error) {
        errors.push(`web mix: ${(error as Error).message}`);
        log(`[bench] web mix failed: ${(error as Error).stack}`);
      }
    }
    if (runs('lighthouse')) {
      try {
        lighthousePages = await measureLighthouse(bs, log, {
          runs: settings.lighthouseRuns,
          reportsDir: settings.lighthouseReportsDir,
        });
      } catch (error) {
        errors.push(`lighthouse: ${(error as Error).message}`);
        log(`[bench] lighthouse failed: ${(error as Error).stack}`);
      }
    }
    if (runs('session-check')) {
      try {
        // On the system's PostgreSQL, in a database of its own, while the rest of the system is idle.
        sessionCheck = await measureSessionCheck(bs.system.infra.databaseUrl, settings.sessionCheck, log);
      } catch (error) {
        errors.push(`session check: ${(error as Error).message}`);
        log(`[bench] session check failed: ${(error as Error).stack}`);
      }
    }
    // The crowd: realtime processes of its own, killed, restarted and added (scenarios/crowd.ts).
    if (runs('storm') || runs('rollout') || runs('fleet'))
      crowd = await measureCrowd(
        root,
        bs,
        settings,
        { storm: runs('storm'), rollout: runs('rollout'), fleet: runs('fleet') },
        log,
        errors,
      );
    if (runs('fresh-authority')) {
      try {
        freshAuthority = await measureFreshAuthority(bs, settings.freshAuthority, log);
      } catch (error) {
        errors.push(`fresh authority: ${(error as Error).message}`);
        log(`[bench] fresh authority failed: ${(error as Error).stack}`);
      }
    }
    if (runs('bursts')) {
      try {
        bursts = await measureBursts(bs, log);
      } catch (error) {
        errors.push(`bursts: ${(error as Error).message}`);
        log(`[bench] bursts failed: ${(error as Error).stack}`);
      }
    }
    await loader.stop();
  } catch (error) {
    errors.push(`system: ${(error as Error).message}`);
    log(`[bench] ${(error as Error).stack}`);
  } finally {
    await shutdown();
    clearTimeout(watchdog);
  }

  const loadAtEnd = loadAverage();
  machine ??= {
    description: '',
    cpuModel: cpus()[0]?.model.trim() ?? 'unknown',
    cpus: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    os: `Linux ${release()}`,
    node: process.version,
    redis: 'unknown',
    loadAverageAtStart: loadAtStart,
    socketVia: settings.socketVia,
    socketClient: settings.socketClient,
    fileDescriptorLimit: fileLimit,
  };
  machine.loadAverageAtEnd = loadAtEnd;
  machine.description =
    `${machine.cpus} × ${machine.cpuModel}, ${machine.memoryGiB} GiB, ${machine.os}, Node ${machine.node}, Redis ${machine.redis}; ` +
    `load average ${loadAtStart[0].toFixed(2)} at start, ${loadAtEnd[0].toFixed(2)} at end`;

  const results = buildResults({
    date,
    machine,
    settings,
    throughput,
    fanout,
    roundEnd,
    openLoop,
    refusals,
    webMix,
    lighthouse: lighthousePages,
    sessionCheck,
    crowd,
    freshAuthority,
    bursts,
    errors,
    durationS: (Date.now() - started) / 1000,
  });
  // Only the full run is the record; a quick run writes beside it, ignored by git.
  const partial = settings.scenarios.length < SCENARIOS.length;
  const outDir =
    settings.profile === 'full' && !partial ? resultsDir : join(resultsDir, partial ? 'partial' : 'quick');
  mkdirSync(outDir, { recursive: true });
  writeFileSync(join(outDir, 'latest.json'), JSON.stringify(results, null, 2) + '\n');
  const table = markdown(results);
  writeFileSync(join(outDir, 'latest.md'), table);
  if (fanout.length > 0) {
    const labels = fanout.map((p) =>
      p.connected < p.requested ? `${p.connected} of ${p.requested}` : String(p.connected),
    );
    const svg = costCurveSvg(
      'One Million Clicks: cost of fan-out per player',
      `${results.date.slice(0, 16).replace('T', ' ')} UTC, ${machine.description}`,
      labels,
      [
        {
          title: 'Realtime CPU per delivered message',
          unit: 'µs',
          target: TARGETS.cpuMicrosPerMessage,
          series: [
            { name: 'CPU', color: '#2c7fb8', values: fanout.map((p) => p.cpuMicrosPerMessage) },
            {
              name: 'bare ws',
              color: '#969696',
              values: fanout.map((p) => p.baseline?.cpuMicrosPerMessage ?? null),
            },
          ],
        },
        {
          title: 'Bytes per second per socket',
          unit: 'B/s',
          target: TARGETS.bytesPerSocketPerSecond,
          series: [{ name: 'bytes', color: '#41ab5d', values: fanout.map((p) => p.bytesPerSocketPerSecond) }],
        },
        {
          title: 'Realtime memory per socket',
          unit: 'KiB',
          series: [
            {
              name: 'memory',
              color: '#8856a7',
              values: fanout.map((p) =>
                p.memoryPerSocketBytes === null ? null : p.memoryPerSocketBytes / 1024,
              ),
            },
          ],
        },
        {
          title: 'Click to screen',
          unit: 'ms',
          target: results.tickMs + TARGETS.clickToScreenSlackMs,
          series: [
            { name: 'p50', color: '#fd8d3c', values: fanout.map((p) => p.clickToScreen.p50Ms) },
            { name: 'p99', color: '#d7301f', values: fanout.map((p) => p.clickToScreen.p99Ms) },
          ],
        },
      ],
    );
    try {
      writePng(svg, join(outDir, 'cost-curve.png'));
    } catch (error) {
      log(`[bench] the chart could not be rendered: ${(error as Error).message}`);
    }
  }
  console.log('\n' + table);
  log(
    `[bench] wrote ${outDir}/latest.json, latest.md and cost-curve.png in ${Math.round((Date.now() - started) / 1000)} s`,
  );
  process.exit(errors.length > 0 && !throughput && openLoop.length === 0 && fanout.length === 0 ? 1 : 0);
}

await main();
