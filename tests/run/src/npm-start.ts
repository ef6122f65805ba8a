// `npm start` typed into a real terminal (tmux) with a marker in its environment, and the check that every
// process and server it started is gone within the bound docs/operations.md gives once it is stopped.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { ensureTmux, processAlive } from '@omc/infra';
import { ROOT } from './images.js';

/** The documented bound (docs/operations.md, "Stopping npm start"). */
const STOP_BOUND_MS = 30_000;

const socket = `omc-stop-${process.pid}`;
export const tmux = (args: string[]) => spawnSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' });

interface Proc {
  pid: number;
  ppid: number;
  comm: string;
}

/** Processes carrying the marker in their environment: npm and everything it started, servers included. */
function marked(marker: string): Proc[] {
  const found: Proc[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (!environ.split('\0').includes(`OMC_STOP_MARKER=${marker}`)) continue;
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      found.push({ pid: Number(entry), ppid, comm });
    } catch {
      // gone meanwhile, or a zombie
    }
  }
  return found;
}

const screen = () => tmux(['capture-pane', '-p', '-J', '-S', '-2000', '-t', 'omc']).stdout ?? '';

async function until<T>(what: string, check: () => T | undefined | false, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}\n--- terminal ---\n${screen().slice(-3000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

const SERVER_PID_FILES = [
  ['postgres', 'postgres/postmaster.pid'],
  ['redis', 'redis/redis.pid'],
  ['nats', 'nats/nats.pid'],
] as const;

let current: { marker: string; dir: string; servers: Proc[] } | undefined;

/** What is still running of what `npm start` started. */
const leftOver = (marker: string): Proc[] => [
  ...marked(marker),
  ...(current?.servers ?? []).filter((p) => processAlive(p.pid)),
];

/** Installs tmux where it is missing (Debian's package). */
export const prepareTerminal = (): void => ensureTmux();

/** Stops by PID whatever the last start left (its servers too, if the test failed before reading them). */
export function cleanUp(): void {
  if (!current) return;
  // Whatever a failed test left behind, by PID (the servers' PID files too, if it failed before reading them).
  for (const file of SERVER_PID_FILES.map(([, f]) => join(current!.dir, 'servers', f))) {
    const pid = existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : 0;
    if (pid > 0 && processAlive(pid)) current.servers.push({ pid, ppid: 0, comm: file });
  }
  for (const p of leftOver(current.marker)) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
  tmux(['kill-server']);
  rmSync(current.dir, { recursive: true, force: true });
  current = undefined;
}

/**
 * `npm start` typed into a fresh terminal, its output through `through` when given (a pipe, as
 * `| tee start.log`); resolves once it says it is running.
 */
export async function npmStartInTerminal(through = ''): Promise<{
  marker: string;
  gatewayUrl: string;
  npm: Proc;
  started: Proc[];
}> {
  const marker = randomBytes(6).toString('hex');
  const dir = join(ROOT, '.data', 'test', `stop-${marker}`);
  current = { marker, dir, servers: [] };
  expect(tmux(['new-session', '-d', '-s', 'omc', '-x', '200', '-y', '50', '-c', ROOT]).status).toBe(0);
  const command = `env OMC_STOP_MARKER=${marker} OMC_INFRA=native OMC_START_PORTS=free OMC_START_DIR=${dir} npm start${through}`;
  tmux(['send-keys', '-t', 'omc', command, 'Enter']);
  const running = await until(
    '"is running" on the terminal',
    () => screen().match(/is running: (http:\/\/\S+)/) ?? undefined,
    240_000,
  );
  const gatewayUrl = running[1]!.replace('localhost', '127.0.0.1');
  const started = marked(marker);
  // npm is the terminal shell's child. (Not "the marked process whose parent is unmarked": a daemonized
  // server's parent is unmarked too, and /proc need not list processes in the order they started.)
  const shell = Number(tmux(['display-message', '-p', '-t', 'omc', '#{pane_pid}']).stdout.trim());
  const npm = started.find((p) => p.ppid === shell);
  expect(
    npm,
    `npm among ${started.map((p) => `${p.comm} (${p.pid}, parent ${p.ppid})`).join(', ')}`,
  ).toBeDefined();
  expect(npm!.comm).toMatch(/^npm/);
  // Redis rewrites its environment with its process title: the servers are also known by their PID files.
  for (const [server, file] of SERVER_PID_FILES) {
    const pid = Number(readFileSync(join(dir, 'servers', file), 'utf8').split('\n')[0]);
    expect(processAlive(pid), `${server} (${pid})`).toBe(true);
    current.servers.push({ pid, ppid: 0, comm: server });
  }
  // The test means something only if the services are among them.
  expect(started.map((p) => p.comm).filter((n) => n === 'node').length).toBeGreaterThanOrEqual(7);
  expect((await fetch(`${gatewayUrl}/api/game/rules`)).status).toBe(200);
  return { marker, gatewayUrl, npm: npm!, started };
}

/** Every process and server the start carrying `marker` started is gone, and the gateway answers no more. */
export async function expectAllGone(marker: string, gatewayUrl: string, how: string): Promise<void> {
  const since = Date.now();
  const deadline = since + STOP_BOUND_MS;
  let left = leftOver(marker);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    left = leftOver(marker);
  }
  console.log(
    `[stop] ${how}: ${left.length === 0 ? `every process gone in ${((Date.now() - since) / 1000).toFixed(1)} s` : `${left.length} left after ${STOP_BOUND_MS / 1000} s`}`,
  );
  expect(left.map((p) => `${p.comm} (${p.pid})`)).toEqual([]);
  const answer = await fetch(`${gatewayUrl}/api/game/rules`, { signal: AbortSignal.timeout(2000) }).then(
    (r) => r.status,
    () => 'no answer',
  );
  expect(answer).toBe('no answer');
}
