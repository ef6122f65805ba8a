// A quiet machine before each scenario: no process of an earlier scenario left running under this run,
// and the CPUs measured idle. The idle share is read from /proc/stat over a short sample (the 1-minute
// load average trails by a minute and counts processes waiting on disk); the check samples until one
// sample reaches the level asked or the wait runs out, and says which.
import { readdirSync, readFileSync } from 'node:fs';
import { loadAverage } from './proc.js';

/** Jiffies the CPUs spent idle (idle + iowait) and in all, from /proc/stat's first line. */
export interface CpuTimes {
  idle: number;
  total: number;
}

/** Reads the `cpu` line of /proc/stat's text: user nice system idle iowait irq softirq steal (guest is in user). */
export function parseCpuTimes(procStat: string): CpuTimes {
  const line = procStat.split('\n').find((l) => l.startsWith('cpu '));
  if (!line) throw new Error('/proc/stat has no cpu line');
  const fields = line.trim().split(/\s+/).slice(1, 9).map(Number);
  if (fields.length < 4 || fields.some((n) => !Number.isFinite(n)))
    throw new Error(`/proc/stat's cpu line is unreadable: ${line}`);
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  return { idle: idle + iowait, total: user + nice + system + idle + iowait + irq + softirq + steal };
}

/** The share of CPU time spent idle between two readings, in percent (null when no time passed). */
export function idlePercent(before: CpuTimes, after: CpuTimes): number | null {
  const total = after.total - before.total;
  if (total <= 0) return null;
  return (100 * (after.idle - before.idle)) / total;
}

export interface QuietOptions {
  /** The idle share a sample must reach, in percent; 0 checks nothing (the level is still read). */
  minIdlePercent: number;
  sampleMs: number;
  /** The longest the check waits for a quiet sample. */
  maxWaitMs: number;
}

export interface QuietCheck {
  quiet: boolean;
  /** The last sample's idle share, in percent. */
  idlePercent: number | null;
  needPercent: number;
  /** Every sample taken, in percent, in order. */
  samples: (number | null)[];
  waitedMs: number;
  reason?: string;
}

/** What the check reads and waits with: /proc/stat and real time, or a test's stand-ins. */
export interface QuietIo {
  readStat(): string;
  sleep(ms: number): Promise<void>;
  now(): number;
}

const realIo: QuietIo = {
  readStat: () => readFileSync('/proc/stat', 'utf8'),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => Date.now(),
};

/** Samples the CPUs' idle share until one sample reaches the level, or the wait is spent. */
export async function waitForQuiet(options: QuietOptions, io: QuietIo = realIo): Promise<QuietCheck> {
  const started = io.now();
  const samples: (number | null)[] = [];
  for (;;) {
    const before = parseCpuTimes(io.readStat());
    await io.sleep(options.sampleMs);
    const idle = idlePercent(before, parseCpuTimes(io.readStat()));
    samples.push(idle);
    const waitedMs = io.now() - started;
    const base = { idlePercent: idle, needPercent: options.minIdlePercent, samples, waitedMs };
    if (options.minIdlePercent <= 0 || (idle !== null && idle >= options.minIdlePercent))
      return { quiet: true, ...base };
    if (waitedMs + options.sampleMs > options.maxWaitMs)
      return {
        quiet: false,
        ...base,
        reason:
          `the CPUs were ${idle === null ? 'unreadable' : `${Math.round(idle)} % idle`}, under the ` +
          `${options.minIdlePercent} % asked, after ${Math.round(waitedMs / 1000)} s of waiting`,
      };
  }
}

/** One line of the quiet check for the log: the level, what was asked, how long it took. */
export function describeQuiet(check: QuietCheck): string {
  const level = check.idlePercent === null ? 'unreadable' : `${Math.round(check.idlePercent)} % idle`;
  const asked = check.needPercent > 0 ? `needs ≥ ${check.needPercent} %` : 'not checked';
  return `CPUs ${level} over the last sample (${asked}), load average ${loadAverage()[0].toFixed(2)}, after ${(check.waitedMs / 1000).toFixed(1)} s`;
}

/** A process as /proc lists it. */
export interface ProcEntry {
  pid: number;
  ppid: number;
  /** Its process group: a process started in a group of its own leads it, and its children join it. */
  pgrp: number;
  /** R, S, D, Z...: a zombie (Z) has exited and waits only to be reaped. */
  state: string;
  command: string;
}

/** Reads /proc/<pid>/stat's text: pid, (comm), state, ppid, pgrp. */
export function parseStatLine(text: string): Omit<ProcEntry, 'command'> & { comm: string } {
  const open = text.indexOf('(');
  const close = text.lastIndexOf(')');
  const [state = '?', ppid = '0', pgrp = '0'] = text.slice(close + 2).split(' ');
  return {
    pid: Number(text.slice(0, open).trim()),
    comm: text.slice(open + 1, close),
    state,
    ppid: Number(ppid),
    pgrp: Number(pgrp),
  };
}

/** Every process this user can see, with its command line (its name when the line is unreadable). */
export function readProcessTable(): ProcEntry[] {
  const table: ProcEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const { comm, ...entry } = parseStatLine(readFileSync(`/proc/${name}/stat`, 'utf8'));
      let command = comm;
      try {
        command = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim() || comm;
      } catch {
        // gone meanwhile, or not ours to read
      }
      table.push({ ...entry, command });
    } catch {
      // the process ended while the table was read
    }
  }
  return table;
}

/**
 * Processes under `rootPid` that are not the standing ones: a standing process and everything under it
 * (a server's own workers) belongs to the system; any other live descendant was left by a scenario.
 */
export function leftoverProcesses(table: ProcEntry[], rootPid: number, standing: Set<number>): ProcEntry[] {
  const children = new Map<number, ProcEntry[]>();
  for (const entry of table) children.set(entry.ppid, [...(children.get(entry.ppid) ?? []), entry]);
  const found: ProcEntry[] = [];
  const visit = (pid: number) => {
    for (const child of children.get(pid) ?? []) {
      if (standing.has(child.pid)) continue;
      if (child.state !== 'Z') found.push(child);
      visit(child.pid);
    }
  };
  visit(rootPid);
  return found;
}

const alive = (pid: number) => {
  try {
    const { state } = parseStatLine(readFileSync(`/proc/${pid}/stat`, 'utf8'));
    return state !== 'Z';
  } catch {
    return false;
  }
};

async function gone(pid: number, withinMs: number): Promise<boolean> {
  const deadline = Date.now() + withinMs;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

/** Stops each leftover by its PID (SIGTERM, then SIGKILL after 5 s) and waits; resolves to any still alive. */
export async function stopLeftovers(leftovers: ProcEntry[]): Promise<ProcEntry[]> {
  const stillAlive: ProcEntry[] = [];
  await Promise.all(
    leftovers.map(async (entry) => {
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(entry.pid, name);
        } catch {
          // already gone
        }
      };
      signal('SIGTERM');
      if (await gone(entry.pid, 5_000)) return;
      signal('SIGKILL');
      if (!(await gone(entry.pid, 2_000))) stillAlive.push(entry);
    }),
  );
  return stillAlive;
}

/** The live members of a process group (a zombie has exited). */
export function groupMembers(table: ProcEntry[], pgrp: number): ProcEntry[] {
  return table.filter((p) => p.pgrp === pgrp && p.state !== 'Z');
}

/**
 * Stops a process started in a group of its own and every process it started (a browser's renderers
 * and helpers, which outlive it otherwise): SIGTERM to the group, SIGKILL after 5 s, and waits until
 * none is left.
 */
export async function stopProcessGroup(pgrp: number): Promise<void> {
  const signal = (name: NodeJS.Signals) => {
    try {
      process.kill(-pgrp, name);
    } catch {
      // the group is gone
    }
  };
  const empty = async (withinMs: number) => {
    const deadline = Date.now() + withinMs;
    while (groupMembers(readProcessTable(), pgrp).length > 0) {
      if (Date.now() > deadline) return false;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return true;
  };
  signal('SIGTERM');
  if (await empty(5_000)) return;
  signal('SIGKILL');
  if (!(await empty(5_000))) throw new Error(`process group ${pgrp} did not stop`);
}
