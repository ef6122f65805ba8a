// Redis as the benchmark sees it: the commands the system sent (INFO commandstats) and the raw speed of
// the same server (redis-benchmark from Debian's redis-tools, installed with apt-get when missing).
import { execFileSync } from 'node:child_process';
import { ensureDebianCommands } from '@omc/infra';
import { Redis } from 'ioredis';

export type CommandCounts = Record<string, number>;

export function parseCommandStats(info: string): CommandCounts {
  const counts: CommandCounts = {};
  for (const line of info.split('\n')) {
    const match = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (match) counts[match[1]!] = Number(match[2]);
  }
  return counts;
}

export async function commandStats(url: string): Promise<CommandCounts> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  try {
    await redis.connect();
    return parseCommandStats(await redis.info('commandstats'));
  } finally {
    redis.disconnect();
  }
}

/** Calls per command between two snapshots, without the benchmark's own INFO calls. */
export function commandDelta(
  before: CommandCounts,
  after: CommandCounts,
): { total: number; byCommand: CommandCounts } {
  const byCommand: CommandCounts = {};
  let total = 0;
  for (const [name, calls] of Object.entries(after)) {
    if (name === 'info') continue;
    const delta = calls - (before[name] ?? 0);
    if (delta > 0) {
      byCommand[name] = delta;
      total += delta;
    }
  }
  return { total, byCommand };
}

function ensureRedisBenchmark(log: (line: string) => void): void {
  ensureDebianCommands(
    [{ command: 'redis-benchmark', pkg: 'redis-tools' }],
    'redis-benchmark is needed for the Redis baseline.',
    log,
  );
}

/** Requests per second of `redis-benchmark -t incr` against the same server. */
export function redisIncrPerSecond(
  url: string,
  requests: number,
  clients: number,
  log: (line: string) => void,
): number {
  ensureRedisBenchmark(log);
  const { hostname, port } = new URL(url);
  const output = execFileSync(
    'redis-benchmark',
    [
      '-h',
      hostname,
      '-p',
      port || '6379',
      '-t',
      'incr',
      '-n',
      String(requests),
      '-c',
      String(clients),
      '--csv',
    ],
    { encoding: 'utf8', timeout: 120_000 },
  );
  // CSV: "test","rps",... then "INCR","123456.79",...
  for (const line of output.split('\n')) {
    const cells = line.split(',').map((cell) => cell.replace(/"/g, ''));
    if (cells[0] === 'INCR') return Number(cells[1]);
  }
  throw new Error(`unexpected redis-benchmark output: ${output.slice(0, 200)}`);
}
