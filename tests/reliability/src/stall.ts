// A stalled server, as a long fork, a failover or a partition looks from its clients: every process of it
// (PostgreSQL's postmaster and its backends) stopped by SIGSTOP, then continued by SIGCONT.
import { readdirSync, readFileSync } from 'node:fs';

/** A process and every process under it. */
function withDescendants(pid: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // The command may hold spaces and parentheses: the parent PID is the 2nd field after the last ')'.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {
      // gone meanwhile
    }
  }
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...(children.get(all[i]!) ?? []));
  return all;
}

/** Stops (parent first) or continues (children first) a server and every process under it. */
export function signalTree(pid: number, signal: 'SIGSTOP' | 'SIGCONT'): void {
  const pids = withDescendants(pid);
  for (const p of signal === 'SIGSTOP' ? pids : pids.reverse()) {
    try {
      process.kill(p, signal);
    } catch {
      // exited meanwhile
    }
  }
}
