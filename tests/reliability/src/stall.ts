// A stalled server, as a long fork, a failover or a partition looks from its clients: every process of it
// (PostgreSQL's postmaster and its backends) stopped by SIGSTOP, then continued by SIGCONT.
import { withDescendants } from '@omc/infra';

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
