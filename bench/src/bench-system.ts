// The system under test, started as `npm start` starts it (startSystem from @omc/infra) with settings
// for load from one host, plus the load users and the trivial-route baseline beside it.
import { randomBytes } from 'node:crypto';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import {
  ensureWebBuilt,
  freePort,
  startSystem,
  type RunningProcess,
  type System,
  serviceBundle,
} from '@omc/infra';
import type { BenchSettings } from './settings.js';
import { refreshCookieOf, type TokenHolder } from './tokens.js';

/** A load user: its access token and its session's refresh cookie (tokens.ts keeps the token fresh). */
export type LoadUser = TokenHolder;

export interface BenchSystem {
  system: System;
  gatewayUrl: string;
  realtimeUrl: string;
  redisUrl: string;
  process(name: string): RunningProcess;
  users: LoadUser[];
  /** The baseline: a second gateway of the same code and settings in front of a trivial upstream. */
  baselineUrl: string;
  /** Starts both gateways (the system's and the baseline's) afresh, on the same ports. */
  restartGateways(): Promise<void>;
  /** The PIDs of the system's processes and the baseline's, as they are now (a restart changes them). */
  pids(): number[];
  /** Restarts the game with another round target (the round-end scenario). */
  restartGame(env: NodeJS.ProcessEnv): Promise<void>;
  stop(): Promise<void>;
}

/** Large enough that no round ends while throughput is measured. */
export const THROUGHPUT_ROUND_TARGET = 1_000_000_000;

export function benchEnvironment(settings: BenchSettings): NodeJS.ProcessEnv {
  return {
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    // One host sends all the load: the per-IP budget is off, the per-user one far above the load. A
    // budget given in the shell is kept (a very high one measures what counting costs, refusing nothing).
    RATE_LIMIT_PER_IP: process.env.RATE_LIMIT_PER_IP ?? '0',
    REGISTER_MAX_PER_IP: '0',
    // Thousands of sockets from loopback: the per-address websocket cap is off too.
    WS_MAX_PER_IP: '0',
    CLICK_RATE_PER_USER: '1000000',
    // Each load token stands for many players and its clicks leave on schedule whatever it was told, so
    // the gateway's early-retry refusal is off like the per-user budgets (it would refuse whole tokens
    // through an overload step); the refusals scenario turns it on and measures it beside players that
    // honour Retry-After.
    CLICK_PENALTY_MAX_KEYS: process.env.CLICK_PENALTY_MAX_KEYS ?? '0',
    CLICK_RATE_PER_IP: '0',
    SIGNUP_FREE_CLICKS: '1000000000',
    ROUND_TARGET: String(THROUGHPUT_ROUND_TARGET),
    BROADCAST_HZ: String(settings.broadcastHz),
  };
}

export async function waitReady(
  url: string,
  child: ChildProcess,
  name: string,
  timeoutMs = 180_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${name} exited with code ${child.exitCode} during start-up`);
    try {
      if ((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) })).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} was not ready at ${url}/readyz within ${timeoutMs} ms`);
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || !child.pid) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  process.kill(child.pid, 'SIGTERM');
  const timer = setTimeout(
    () => child.exitCode === null && child.pid && process.kill(child.pid, 'SIGKILL'),
    10_000,
  );
  await exited;
  clearTimeout(timer);
}

async function postJson(
  url: string,
  body: unknown,
  token?: string,
): Promise<{ status: number; json: any; setCookies: string[] }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = { raw: text.slice(0, 200) };
  }
  return { status: response.status, json, setCookies: response.headers.getSetCookie() };
}

/** Registers users through the gateway, as players do, a few at a time (password hashing is costly). */
export async function registerUsers(
  gatewayUrl: string,
  count: number,
  log: (line: string) => void,
): Promise<LoadUser[]> {
  const run = randomBytes(3).toString('hex');
  const users: LoadUser[] = [];
  let next = 0;
  const lane = async () => {
    while (next < count) {
      const i = next++;
      const username = `ld${run}_${i}`;
      const { status, json, setCookies } = await postJson(`${gatewayUrl}/api/user/register`, {
        username,
        email: `${username}@bench.example`,
        password: `pw-${run}-${i}-load`,
      });
      if (status !== 200 && status !== 201)
        throw new Error(`registering ${username} answered ${status}: ${JSON.stringify(json)}`);
      users.push({ username, token: json.token, refreshCookie: refreshCookieOf(setCookies) });
    }
  };
  await Promise.all(Array.from({ length: 12 }, lane));
  log(`[bench] registered ${users.length} users`);
  return users;
}

/** Each user's first click proves the game knows them (registration reaches it by event) and loads them. */
async function firstClicks(gatewayUrl: string, users: LoadUser[], timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let pending = [...users];
  while (pending.length > 0) {
    const results = await Promise.all(
      pending.map(async (u) => ({
        u,
        r: await postJson(`${gatewayUrl}/api/game/click`, undefined, u.token),
      })),
    );
    pending = results.filter(({ r }) => r.status !== 200).map(({ u }) => u);
    if (pending.length === 0) return;
    if (Date.now() > deadline) {
      const sample = results.find(({ r }) => r.status !== 200)!;
      throw new Error(
        `${pending.length} users still cannot click after ${timeoutMs} ms (e.g. ${sample.r.status} ${JSON.stringify(sample.r.json)})`,
      );
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

export async function startBenchSystem(
  root: string,
  settings: BenchSettings,
  log: (line: string) => void,
): Promise<BenchSystem> {
  const dir = join(root, '.data', 'bench');
  // The gateway serves web/dist: the web app's figures are of the tree as it is, not of an older build.
  ensureWebBuilt(root, { stdio: ['ignore', 'ignore', 'inherit'] });
  const system = await startSystem({
    root,
    dir,
    env: benchEnvironment(settings),
    log,
    // A shared, busy machine can take more than the default minute to start a process.
    readyTimeoutMs: 180_000,
  });
  const extra: ChildProcess[] = [];
  const stop = async () => {
    for (const child of extra.reverse()) await stopChild(child);
    await system.stop();
  };
  try {
    const find = (name: string) => {
      const found = system.processes.find((p) => p.name === name);
      if (!found) throw new Error(`the system has no ${name} process yet`);
      return found;
    };
    const gateway = find('gateway');
    const realtime = find('realtime');

    const users = await registerUsers(system.gatewayUrl, settings.users, log);
    await firstClicks(system.gatewayUrl, users);
    log('[bench] every load user can click');

    // The baseline: trivial upstream, and a second gateway of the same code and settings in front of it.
    const upstreamPort = await freePort();
    const upstream = spawn(
      process.execPath,
      ['--import', 'tsx', join(root, 'bench', 'src', 'trivial-upstream.ts')],
      {
        cwd: join(root, 'bench'),
        env: { ...process.env, PORT: String(upstreamPort) },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    extra.push(upstream);
    const upstreamUrl = `http://127.0.0.1:${upstreamPort}`;
    await waitReady(upstreamUrl, upstream, 'trivial upstream');

    const baselinePort = await freePort();
    const baselineLog = createWriteStream(join(dir, 'logs', 'gateway-baseline.log'), { flags: 'a' });
    const baselineUrl = `http://127.0.0.1:${baselinePort}`;
    // Its /readyz answers on its own internal listener, never on the public port.
    const baselineInternalPort = await freePort();
    let baseline: ChildProcess | undefined;
    const startBaseline = async () => {
      const child = spawn(process.execPath, [await serviceBundle(root, join(root, gateway.deployable.dir))], {
        cwd: join(root, gateway.deployable.dir),
        env: {
          ...gateway.env,
          GAME_URL: upstreamUrl,
          PORT: String(baselinePort),
          GATEWAY_PORT: String(baselinePort),
          GATEWAY_INTERNAL_PORT: String(baselineInternalPort),
          INSTANCE_NAME: 'gateway-baseline',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.pipe(baselineLog, { end: false });
      child.stderr?.pipe(baselineLog, { end: false });
      extra.push(child);
      baseline = child;
      await waitReady(`http://127.0.0.1:${baselineInternalPort}`, child, 'baseline gateway');
    };
    await startBaseline();
    log(`[bench] baseline: gateway ${baselineUrl} -> trivial upstream ${upstreamUrl}`);

    return {
      system,
      gatewayUrl: system.gatewayUrl,
      realtimeUrl: realtime.url,
      redisUrl: system.infra.redisUrl,
      process: find,
      users,
      baselineUrl,
      pids: () =>
        [...system.processes.map((p) => p.pid), ...extra.map((c) => c.pid)].filter(
          (pid): pid is number => pid !== undefined,
        ),
      async restartGateways() {
        await system.stopProcess('gateway');
        await system.restartProcess('gateway');
        if (baseline) {
          await stopChild(baseline);
          extra.splice(extra.indexOf(baseline), 1);
        }
        await startBaseline();
      },
      async restartGame(env) {
        const game = find('game');
        await system.stopProcess('game');
        Object.assign(game.env, env);
        await system.restartProcess('game');
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
