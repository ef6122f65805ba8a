// The CPU the whole cluster spends: each service, PostgreSQL (with one backend process per connection),
// Redis and NATS, read from /proc before and after a run of the web mix.
import { readdirSync, readFileSync } from 'node:fs';
import type { BenchSystem } from '../bench-system.js';
import { cpuSeconds } from '../proc.js';

/** Each process's CPU seconds so far, and each of its children's, by the cluster's names. */
export type ClusterCpu = Record<string, Map<number, number>>;

/** CPU seconds so far of a process and of each of its children (PostgreSQL: one backend per connection). */
function treeCpu(pid: number): Map<number, number> {
  const out = new Map<number, number>([[pid, cpuSeconds(pid)]]);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.set(Number(entry), cpuSeconds(Number(entry)));
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

/** CPU spent between two readings: a child that exited meanwhile is left out, a new one counts whole. */
export function spent(before: Map<number, number>, after: Map<number, number>): number {
  let total = 0;
  for (const [pid, cpu] of after) total += cpu - (before.get(pid) ?? 0);
  return total;
}

/** A reader of the cluster's CPU: the services, PostgreSQL, Redis and NATS. */
export function clusterCpu(bs: BenchSystem): () => ClusterCpu {
  const pids: Record<string, number | undefined> = {
    gateway: bs.process('gateway').pid,
    auth: bs.process('auth').pid,
    game: bs.process('game').pid,
    payments: bs.process('payments').pid,
    realtime: bs.process('realtime').pid,
    postgres: bs.system.infra.pids.postgres,
    redis: bs.system.infra.pids.redis,
    nats: bs.system.infra.pids.nats,
  };
  return () =>
    Object.fromEntries(
      Object.entries(pids).map(([name, pid]) => [name, pid ? treeCpu(pid) : new Map<number, number>()]),
    );
}
