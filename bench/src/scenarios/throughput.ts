// Figures 1 and 2: accepted clicks per second through the gateway at the best concurrency whose p99 stays
// under the bound, against the same gateway proxying a trivial route and against raw Redis INCR; and the
// Redis commands the system spent per accepted click at that load.
import type { BenchSystem } from '../bench-system.js';
import type { HttpLoadOptions, HttpLoadResult } from '../http-load.js';
import { commandDelta, commandStats, redisIncrPerSecond, type CommandCounts } from '../redis-stats.js';
import type { BenchSettings } from '../settings.js';
import { ratio } from '../stats.js';
import type { Worker } from '../workers.js';

export interface ThroughputStep {
  connections: number;
  okPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  ok: number;
  non2xx: number;
  errors: number;
  statusCounts: Record<string, number>;
  redisCommands: number;
  redisCommandsPerClick: number | null;
  redisByCommand: CommandCounts;
}

export interface ThroughputResult {
  steps: ThroughputStep[];
  chosen: ThroughputStep;
  withinBound: boolean;
  baseline: {
    connections: number;
    okPerSecond: number;
    p50Ms: number;
    p99Ms: number;
    non2xx: number;
    errors: number;
  };
  redisIncrPerSecond: number;
  clickThroughputRatio: number | null;
  redisIncrRatio: number | null;
}

export async function measureThroughput(
  bs: BenchSystem,
  settings: BenchSettings,
  loader: Worker,
  log: (line: string) => void,
): Promise<ThroughputResult> {
  const tokens = bs.users.map((u) => u.token);
  const clicks = (connections: number, durationS: number, url = bs.gatewayUrl): HttpLoadOptions => ({
    url,
    path: '/api/game/click',
    method: 'POST',
    connections,
    durationS,
    tokens,
  });
  const run = (options: HttpLoadOptions) =>
    loader.call<HttpLoadResult>('run', options, (options.durationS + 60) * 1000);

  log(`[bench] throughput: warming up for ${settings.warmupS} s`);
  await run(clicks(settings.concurrencies[0]!, settings.warmupS));

  const steps: ThroughputStep[] = [];
  for (const connections of settings.concurrencies) {
    const before = await commandStats(bs.redisUrl);
    const r = await run(clicks(connections, settings.stepDurationS));
    const after = await commandStats(bs.redisUrl);
    const redis = commandDelta(before, after);
    const step: ThroughputStep = {
      connections,
      okPerSecond: r.okPerSecond,
      p50Ms: r.latencyMs.p50,
      p99Ms: r.latencyMs.p99,
      ok: r.ok,
      non2xx: r.non2xx,
      errors: r.errors,
      statusCounts: r.statusCounts,
      redisCommands: redis.total,
      redisCommandsPerClick: ratio(redis.total, r.ok),
      redisByCommand: redis.byCommand,
    };
    steps.push(step);
    log(
      `[bench]   ${connections} connections: ${Math.round(r.okPerSecond)} clicks/s, p50 ${r.latencyMs.p50} ms, p99 ${r.latencyMs.p99} ms, ` +
        `non-2xx ${r.non2xx}, errors ${r.errors}, Redis ${step.redisCommandsPerClick?.toFixed(3)} commands/click`,
    );
    // Past the bound, more connections only queue.
    if (r.latencyMs.p99 >= settings.p99BoundMs * 2) break;
  }
  const within = steps.filter((s) => s.p99Ms < settings.p99BoundMs && s.errors === 0 && s.ok > 0);
  const chosen = (within.length > 0 ? within : steps).reduce((best, s) =>
    s.okPerSecond > best.okPerSecond ? s : best,
  );

  log(`[bench] baseline: trivial route through a second gateway at ${chosen.connections} connections`);
  await run(clicks(chosen.connections, settings.warmupS, bs.baselineUrl));
  const b = await run(clicks(chosen.connections, settings.stepDurationS, bs.baselineUrl));
  log(
    `[bench]   ${Math.round(b.okPerSecond)} requests/s, p50 ${b.latencyMs.p50} ms, p99 ${b.latencyMs.p99} ms, non-2xx ${b.non2xx}`,
  );

  const incr = redisIncrPerSecond(
    bs.redisUrl,
    settings.redisBenchmarkRequests,
    settings.redisBenchmarkClients,
    log,
  );
  log(`[bench] redis-benchmark -t incr: ${Math.round(incr)} requests/s`);

  return {
    steps,
    chosen,
    withinBound: within.length > 0,
    baseline: {
      connections: chosen.connections,
      okPerSecond: b.okPerSecond,
      p50Ms: b.latencyMs.p50,
      p99Ms: b.latencyMs.p99,
      non2xx: b.non2xx,
      errors: b.errors,
    },
    redisIncrPerSecond: incr,
    clickThroughputRatio: ratio(chosen.okPerSecond, b.okPerSecond),
    redisIncrRatio: ratio(chosen.okPerSecond, incr),
  };
}
