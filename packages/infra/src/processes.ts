// One process of the system: started as its package's start script (or under tsx watch), its output
// to its log file (and the terminal, prefixed), waited for until /readyz answers, stopped by its PID.
import { createRequire } from 'node:module';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import type { Deployable } from './deployables.js';
import { serviceBundle } from './bundles.js';

export interface RunningProcess {
  name: string;
  deployable: Deployable;
  port: number;
  url: string;
  /** Where its /healthz, /readyz and /metrics answer: `url` for a service, the gateway's internal listener. */
  internalUrl: string;
  env: NodeJS.ProcessEnv;
  child: ChildProcess;
  pid: number;
}

async function waitReady(url: string, child: ChildProcess, name: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  /** What the last probe got, for the error: a status and its report, or why no answer came. */
  let last = 'no answer';
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${name} exited with code ${child.exitCode} during start-up (see its log)`);
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
      last = `${response.status} ${(await response.text()).slice(0, 300)}`;
    } catch (error) {
      // not listening yet
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      last = cause ?? (error as Error).message;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} was not ready at ${url}/readyz within ${timeoutMs} ms (last: ${last})`);
}

function pipeOutput(
  child: ChildProcess,
  name: string,
  mode: 'inherit' | 'files',
  logFile: WriteStream,
): void {
  const prefix = `[${name}] `;
  for (const stream of [child.stdout, child.stderr]) {
    if (!stream) continue;
    let buffered = '';
    stream.on('data', (chunk: Buffer) => {
      logFile.write(chunk);
      if (mode !== 'inherit') return;
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(prefix + line + '\n');
    });
  }
}

export async function killProcess(
  child: ChildProcess,
  signal: NodeJS.Signals = 'SIGTERM',
  timeoutMs = 15_000,
): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, signal);
  const timer = setTimeout(
    () => child.pid && child.exitCode === null && process.kill(child.pid, 'SIGKILL'),
    timeoutMs,
  );
  await exited;
  clearTimeout(timer);
}

export interface LaunchOptions {
  root: string;
  /** The system's folder: the log goes to logs/<name>.log there. */
  dir: string;
  logs: 'inherit' | 'files';
  watch?: readonly string[];
  readyTimeoutMs?: number;
}

/** Starts one process and resolves when it is ready; one that never gets ready is killed. */
export async function launchProcess(
  options: LaunchOptions,
  at: { name: string; deployable: Deployable; port: number; url: string; internalUrl: string },
  env: NodeJS.ProcessEnv,
): Promise<RunningProcess> {
  const { name, deployable } = at;
  const logFile = createWriteStream(join(options.dir, 'logs', `${name}.log`), { flags: 'a' });
  // Watched: tsx's own watch mode (the package's tsx), which restarts it when a file it imports changes.
  // Otherwise the deployable's bundle (bundles.ts): the same code, started without transpiling it.
  const args = options.watch?.includes(deployable.name)
    ? [
        createRequire(join(options.root, deployable.dir, 'package.json')).resolve('tsx/cli'),
        'watch',
        'src/main.ts',
      ]
    : [await serviceBundle(options.root, join(options.root, deployable.dir))];
  const child = spawn(process.execPath, args, {
    cwd: join(options.root, deployable.dir),
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  pipeOutput(child, name, options.logs, logFile);
  child.once('exit', () => logFile.end());
  const running: RunningProcess = { ...at, env, child, pid: child.pid! };
  try {
    await waitReady(running.internalUrl, child, name, options.readyTimeoutMs);
  } catch (error) {
    // A process that never became ready is not left running behind the failed start.
    await killProcess(child, 'SIGKILL');
    throw error;
  }
  return running;
}
