// Load generators run in child processes of their own (never in the servers' or the runner's event loop).
// A tiny request/reply protocol over the IPC channel: the runner calls, the worker answers.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

interface Call {
  id: number;
  method: string;
  args: unknown;
}

interface Reply {
  id: number;
  ok: boolean;
  value?: unknown;
  error?: string;
}

export interface Worker {
  pid: number;
  call<T>(method: string, args?: unknown, timeoutMs?: number): Promise<T>;
  stop(): Promise<void>;
}

const children = new Set<ChildProcess>();

/** Starts `src/<name>.ts` as a child process running TypeScript through tsx. */
export function startWorker(name: string, env: NodeJS.ProcessEnv = {}): Worker {
  const file = fileURLToPath(new URL(`./${name}.ts`, import.meta.url));
  const child = fork(file, [], {
    execArgv: ['--import', 'tsx', '--max-old-space-size=2048'],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  children.add(child);
  let next = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (message: Reply) => {
    const waiter = pending.get(message.id);
    if (!waiter) return;
    pending.delete(message.id);
    if (message.ok) waiter.resolve(message.value);
    else waiter.reject(new Error(`${name}: ${message.error}`));
  });
  child.on('exit', (code, signal) => {
    children.delete(child);
    for (const waiter of pending.values())
      waiter.reject(new Error(`${name} (pid ${child.pid}) exited (${code ?? signal})`));
    pending.clear();
  });

  return {
    pid: child.pid!,
    call<T>(method: string, args?: unknown, timeoutMs = 120_000): Promise<T> {
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new Error(`${name}.${method} took longer than ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, {
          resolve: (v) => {
            clearTimeout(timer);
            resolve(v as T);
          },
          reject: (e) => {
            clearTimeout(timer);
            reject(e);
          },
        });
        child.send({ id, method, args } satisfies Call);
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.exitCode === null && child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Stops every worker still running (by its own PID) but those of `keep`, e.g. when the run fails half-way. */
export async function stopAllWorkers(keep: number[] = []): Promise<void> {
  await Promise.all(
    [...children]
      .filter((child) => !keep.includes(child.pid!))
      .map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGKILL');
          }),
      ),
  );
}

/** Worker side: answers the runner's calls with the given handlers, and exits when the runner goes. */
export function serveCalls(handlers: Record<string, (args: any) => unknown>): void {
  process.on('message', (message: Call) => {
    const handler = handlers[message.method];
    const reply = (r: Omit<Reply, 'id'>) => process.send?.({ id: message.id, ...r });
    if (!handler) return reply({ ok: false, error: `no method ${message.method}` });
    Promise.resolve()
      .then(() => handler(message.args))
      .then(
        (value) => reply({ ok: true, value }),
        (error: unknown) =>
          reply({
            ok: false,
            error: error instanceof Error ? (error.stack ?? error.message) : String(error),
          }),
      );
  });
  process.on('disconnect', () => process.exit(0));
}

/** A wall-clock time in milliseconds with sub-millisecond precision, comparable across processes. */
export function nowMs(): number {
  return performance.timeOrigin + performance.now();
}
