// `pnpm --filter @omc/bench bench:refusals`: what an impolite client (one that ignores Retry-After)
// takes from players who honour it, and what a refusal costs the gateway beside an accepted click.
// A gateway of this tree (the real process, real Redis) in front of a stand-in game of fixed capacity
// (capped-upstream.ts). Players click open-loop at half that capacity, each waiting out any
// Retry-After it is given; 64 closed-loop connections resend the moment they are answered. Printed:
// the players' goodput alone, beside the impolite connections with the early-retry refusal on and off,
// and the gateway's CPU per accepted click and per early refusal (ratios within this run).
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { freePort, startInfra, serviceBundle } from '@omc/infra';
import { Pool } from 'undici';
import { runImpolite, sendClick } from './impolite.js';
import { cpuSeconds } from './proc.js';

const root = join(import.meta.dirname, '..', '..');
const PHASE_S = Number(process.env.REFUSALS_PHASE_S ?? 8);
const PLAYERS = 100;
const IMPOLITE = 64;
const CONCURRENCY = 4;
const SERVICE_MS = 10;
const capacity = (CONCURRENCY * 1000) / SERVICE_MS;
const playerRate = capacity / 2;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (line: string) => console.log(`[refusals] ${line}`);

/**
 * A bearer token of auth's shape (header.claims.signature, unexpired): the gateway judges only such a
 * click (docs/decisions.md, "Who an early retry is charged to"); the stand-in game checks no signature.
 */
const tokens = new Map<string, string>();
const tokenOf = (name: string): string => {
  let token = tokens.get(name);
  if (!token) {
    const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
    token = `${part({ alg: 'EdDSA' })}.${part({ sub: name, exp: Math.floor(Date.now() / 1000) + 3600 })}.sig`;
    tokens.set(name, token);
  }
  return token;
};

async function waitReady(url: string, child: ChildProcess, name: string): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${name} exited (${child.exitCode})`);
    try {
      if ((await fetch(url, { signal: AbortSignal.timeout(1000) })).ok) return;
    } catch {
      // not yet
    }
    await sleep(100);
  }
  throw new Error(`${name} did not become ready`);
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(5000)]);
  if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await exited;
}

interface Phase {
  playersOk: number;
  /** Players' accepted clicks in the phase's second half (the impolite ones all refused once by then). */
  playersOkLate: number;
  playersRefused: number;
  impoliteOk: number;
  impolite429: number;
  impolite503: number;
  gatewayCpuS: number;
  seconds: number;
}

async function phase(gatewayUrl: string, gatewayPid: number, withImpolite: boolean, withPlayers = true) {
  const stats: Phase = {
    playersOk: 0,
    playersOkLate: 0,
    playersRefused: 0,
    impoliteOk: 0,
    impolite429: 0,
    impolite503: 0,
    gatewayCpuS: 0,
    seconds: PHASE_S,
  };
  const pool = new Pool(gatewayUrl, { connections: 32 });
  const until = Date.now() + PHASE_S * 1000;
  const halfway = until - (PHASE_S * 1000) / 2;
  const backoffUntil = new Array<number>(PLAYERS).fill(0);
  const cpuBefore = cpuSeconds(gatewayPid);
  const players = (async () => {
    if (!withPlayers) return;
    const interval = 1000 / playerRate;
    const inFlight: Promise<void>[] = [];
    for (let i = 0, t = Date.now(); t < until; i++, t += interval) {
      const wait = t - Date.now();
      if (wait > 0) await sleep(wait);
      const who = i % PLAYERS;
      if (Date.now() < backoffUntil[who]!) continue; // honours its Retry-After: this click waits
      inFlight.push(
        sendClick(pool, tokenOf(`player-${who}`)).then(
          (a) => {
            if (a.status === 200) {
              stats.playersOk += 1;
              if (Date.now() >= halfway) stats.playersOkLate += 1;
            } else {
              stats.playersRefused += 1;
              backoffUntil[who] = Date.now() + a.retryAfter * 1000;
            }
          },
          () => undefined,
        ),
      );
    }
    await Promise.all(inFlight);
  })();
  const impolite = withImpolite
    ? runImpolite(gatewayUrl, IMPOLITE, (i) => tokenOf(`impolite-${i}`), until, stats)
    : undefined;
  await Promise.all([players, impolite]);
  stats.gatewayCpuS = cpuSeconds(gatewayPid) - cpuBefore;
  await pool.close();
  return stats;
}

async function main(): Promise<void> {
  const dir = join(root, '.data', 'bench-refusals');
  const infra = await startInfra({ dir, env: { ...process.env, OMC_INFRA: 'native' }, log: () => undefined });
  const children: ChildProcess[] = [];
  try {
    const upstreamPort = await freePort();
    const upstream = spawn(
      process.execPath,
      ['--import', 'tsx', join(root, 'bench', 'src', 'capped-upstream.ts')],
      {
        cwd: join(root, 'bench'),
        env: {
          ...process.env,
          PORT: String(upstreamPort),
          CONCURRENCY: String(CONCURRENCY),
          SERVICE_MS: String(SERVICE_MS),
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
    children.push(upstream);
    const upstreamUrl = `http://127.0.0.1:${upstreamPort}`;
    await waitReady(`${upstreamUrl}/healthz`, upstream, 'stand-in game');

    const startGateway = async (penaltyKeys: number, extra: Record<string, string> = {}) => {
      const port = await freePort();
      const internal = await freePort();
      const child = spawn(process.execPath, [await serviceBundle(root, join(root, 'gateway'))], {
        cwd: join(root, 'gateway'),
        env: {
          ...process.env,
          GATEWAY_PORT: String(port),
          GATEWAY_INTERNAL_PORT: String(internal),
          GAME_URL: upstreamUrl,
          AUTH_URL: upstreamUrl,
          PAYMENTS_URL: upstreamUrl,
          REALTIME_URLS: upstreamUrl,
          REDIS_URL: infra.redisUrl,
          RATE_LIMIT_PER_IP: '0',
          LOG_LEVEL: 'warn',
          OTEL_TRACES_SAMPLER: 'always_off',
          CLICK_PENALTY_MAX_KEYS: String(penaltyKeys),
          ...extra,
        },
        stdio: ['ignore', 'ignore', 'inherit'],
      });
      children.push(child);
      await waitReady(`http://127.0.0.1:${internal}/readyz`, child, 'gateway');
      return { url: `http://127.0.0.1:${port}`, child };
    };

    log(
      `stand-in game: ${capacity} clicks/s at most; players offer ${playerRate}/s; ${IMPOLITE} impolite connections; ${PHASE_S} s a phase`,
    );
    const on = await startGateway(100_000);
    const alone = await phase(on.url, on.child.pid!, false);
    const withOn = await phase(on.url, on.child.pid!, true);
    await stopChild(on.child);
    // The impolite connections alone, their early refusals sent at once (held, they come once a second
    // per connection and the gateway's own upkeep is most of the figure): what an early refusal costs.
    const unheld = await startGateway(100_000, { CLICK_PENALTY_DELAY_MS: '0' });
    const refusalsOnly = await phase(unheld.url, unheld.child.pid!, true, false);
    await stopChild(unheld.child);
    const off = await startGateway(0);
    const withOff = await phase(off.url, off.child.pid!, true);
    await stopChild(off.child);

    const goodput = (p: Phase) => p.playersOk / p.seconds;
    const lateGoodput = (p: Phase) => p.playersOkLate / (p.seconds / 2);
    const cpuPerAccepted = (alone.gatewayCpuS / alone.playersOk) * 1e6;
    const cpuPerRefusal = (refusalsOnly.gatewayCpuS / Math.max(1, refusalsOnly.impolite429)) * 1e6;
    const rows = [
      ['players alone', alone],
      ['+ 64 impolite, early-retry refusal on', withOn],
      ['+ 64 impolite, early-retry refusal off', withOff],
      ['64 impolite alone (refusal on, not held)', refusalsOnly],
    ] as const;
    console.log(
      '\n| phase | players ok/s | second half | players refused | impolite ok | impolite 429 | impolite 503 | gateway CPU s |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
    for (const [name, p] of rows) {
      console.log(
        `| ${name} | ${goodput(p).toFixed(1)} | ${lateGoodput(p).toFixed(1)} | ${p.playersRefused} | ${p.impoliteOk} | ${p.impolite429} | ${p.impolite503} | ${p.gatewayCpuS.toFixed(2)} |`,
      );
    }
    console.log(
      `\nplayers' goodput beside 64 impolite connections: ${((100 * goodput(withOn)) / goodput(alone)).toFixed(1)} % of alone with the refusal (target ≥ 90 %), ` +
        `${((100 * goodput(withOff)) / goodput(alone)).toFixed(1)} % without; ` +
        `second half of each phase: ${((100 * lateGoodput(withOn)) / lateGoodput(alone)).toFixed(1)} % with, ` +
        `${((100 * lateGoodput(withOff)) / lateGoodput(alone)).toFixed(1)} % without`,
    );
    console.log(
      `gateway CPU per accepted click ${cpuPerAccepted.toFixed(0)} µs, per early refusal ${cpuPerRefusal.toFixed(0)} µs: ` +
        `a refusal costs ${(cpuPerRefusal / cpuPerAccepted).toFixed(2)} of an accepted click`,
    );
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await infra.stop();
  }
}

await main();
