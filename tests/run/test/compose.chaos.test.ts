// docker-compose.yml, executed: every image built (offline, from the lockfile), the stack started and
// healthy, a player's whole journey through the compose gateway, every container non-root on a read-only
// root, then `down -v`. Skipped, with the reason printed, only where no engine can be started, or when
// OMC_INFRA=native asks for no containers at all.
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  freePort,
  killByPid,
  startBalancer,
  startInfra,
  startMailCatcher,
  type Balancer,
  type MailCatcher,
} from '@omc/infra';
import { Stores } from '@omc/replicas-tests/audit';
import { ChaosMatrix, type Row } from '@omc/replicas-tests/matrix';
import {
  requestAlone,
  register,
  sleep,
  Traffic,
  untilGameKnows,
  useBaseUrl,
  type Player,
  type ProbeAnswer,
} from '@omc/replicas-tests/players';
import { ensureEngine, type Engine } from '../src/engine.js';
import {
  baseImages,
  buildImages,
  composeBuilds,
  forgetBuilds,
  imageSizes,
  ROOT,
  vendorOffline,
  type BuildFigures,
} from '../src/images.js';
import { journey, type JourneyOutcome } from '../src/journey.js';

const log = (line: string) => console.log(line);
const project = `omc-compose-${process.pid}`;
let engine: Engine | undefined;
let skipReason: string | undefined;
let env: NodeJS.ProcessEnv = {};
let gatewayUrl = '';
/** The mail catcher on the host that auth's container sends to (host.docker.internal). */
let mail: MailCatcher | undefined;
const figures: {
  cold?: BuildFigures;
  warm?: BuildFigures;
  coldIsCold?: boolean;
  upToHealthy?: number;
  /** `up --scale` from the journey's stack to every replica healthy, and the chaos matrix's run. */
  scaledUp?: number;
  matrix?: number;
  sizes?: Record<string, number>;
  bases?: Record<string, string>;
} = {};

function compose(args: string[], timeout = 300_000, name = project) {
  return spawnSync(
    engine!.compose[0]!,
    [...engine!.compose.slice(1), '-p', name, '-f', join(ROOT, 'docker-compose.yml'), ...args],
    {
      cwd: ROOT,
      env,
      encoding: 'utf8',
      timeout,
    },
  );
}

function docker(args: string[]) {
  return spawnSync(engine!.docker, args, { encoding: 'utf8', timeout: 30_000 });
}

/**
 * Removes the stacks an earlier run of this suite left behind (its process gone: killed, or the machine
 * restarted): their containers come back with the engine (`restart: unless-stopped`) and would share
 * the machine, and its two cores, with this run.
 */
function removeLeftStacks(): void {
  const labels = docker([
    'ps',
    '-a',
    '--filter',
    'label=com.docker.compose.project',
    '--format',
    '{{.Label "com.docker.compose.project"}}',
  ]).stdout;
  const left = new Set(labels.split('\n').filter((p) => /^omc-compose-\d+$/.test(p) && p !== project));
  for (const name of left) {
    if (processAlive(Number(name.slice('omc-compose-'.length)))) continue;
    log(`[containers] removing ${name}, left by an earlier run`);
    const down = compose(['down', '-v', '--remove-orphans', '--timeout', '5'], 300_000, name);
    if (down.status !== 0) log(`[containers] compose down ${name} said:\n${down.stderr}`);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

interface ContainerState {
  id: string;
  service: string;
  status: string;
  health?: string;
  exitCode: number;
  readOnly: boolean;
}

function containers(): ContainerState[] {
  const ids = docker(['ps', '-a', '-q', '--filter', `label=com.docker.compose.project=${project}`])
    .stdout.trim()
    .split('\n')
    .filter(Boolean);
  if (ids.length === 0) return [];
  // The whole JSON: a template cannot ask for State.Health where a container has no health check.
  const inspected = JSON.parse(docker(['inspect', ...ids]).stdout) as {
    Id: string;
    Config: { Labels: Record<string, string> };
    State: { Status: string; ExitCode: number; Health?: { Status: string } };
    HostConfig: { ReadonlyRootfs: boolean };
  }[];
  return inspected.map((c) => ({
    id: c.Id,
    service: c.Config.Labels['com.docker.compose.service'] ?? '?',
    status: c.State.Status,
    health: c.State.Health?.Status,
    exitCode: c.State.ExitCode,
    readOnly: c.HostConfig.ReadonlyRootfs,
  }));
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`;

/** The replicas of the scaled run: the 2 auth, 3 game, 2 payments, 2 realtime, 2 gateways. */
const SCALE = { auth: 2, game: 3, payments: 2, realtime: 2, gateway: 2 } as const;
/** The scaled run's settings (the journey's short round would end a round every second under traffic). */
const SCALED_ENV = {
  ROUND_TARGET: '300',
  MILESTONES: '10:100,50:500',
  // Every player reaches the gateways from this host, through the one balancer.
  CLICK_RATE_PER_IP: '0',
  CLICK_RATE_PER_USER: '1000',
};
const PLAYERS = 24;
const PAUSE_MS = 300;
/** How long a paused store stays paused. */
const PAUSE_STORE_MS = 15_000;
/** How long into a pause the state and a click are asked for. */
const STALL_PROBE_AFTER_MS = 3000;
/** A request on a stalled store's path is answered within this (docs/reliability.md, "stalled store"). */
const STALL_ANSWER_BOUND_MS = 2000;
const scaled: { traffic?: Traffic; balancer?: Balancer } = {};

/** The containers of one service that are running now. */
function running(service: string): ContainerState[] {
  return containers().filter((c) => c.service === service && c.status === 'running');
}

function only(service: string): ContainerState {
  const [c] = running(service);
  if (!c) throw new Error(`no ${service} container running`);
  return c;
}

function ipOf(id: string): string {
  return docker([
    'inspect',
    '-f',
    '{{range .NetworkSettings.Networks}}{{.IPAddress}}{{end}}',
    id,
  ]).stdout.trim();
}

/** The host port a gateway container's 8080 is published on (one of GATEWAY_PORT's range). */
function hostPort(id: string): number {
  const port = /:(\d+)\s*$/m.exec(docker(['port', id, '8080']).stdout)?.[1];
  if (!port) throw new Error(`gateway ${id.slice(0, 12)} publishes no port`);
  return Number(port);
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '0.0.0.0', () => server.close(() => resolve(true)));
  });
}

/** Two free ports in a row: GATEWAY_PORT as a range, so each gateway replica publishes one of them. */
async function freePortRange(): Promise<string> {
  for (;;) {
    const first = await freePort();
    if (first < 65_535 && (await portFree(first + 1))) return `${first}-${first + 1}`;
  }
}

/** Every container healthy (jwt-keys done) and each service at its replica count; false at the deadline. */
async function untilSettled(
  counts: Record<string, number>,
  timeoutMs: number,
  args: string[],
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const states = containers().filter((c) => c.status !== 'exited' || c.service === 'jwt-keys');
    const healthy = states.every(
      (c) => c.health === 'healthy' || (c.service === 'jwt-keys' && c.exitCode === 0),
    );
    const scaledRight = Object.entries(counts).every(
      ([service, n]) => states.filter((c) => c.service === service).length === n,
    );
    if (healthy && scaledRight) return true;
    if (Date.now() > deadline) return false;
    // Compose v1 may stop before starting the rest: ask again (already running ones stay).
    if (states.some((c) => c.status === 'created')) compose(args);
    await sleep(1000);
  }
}

/**
 * What is not healthy now: a service short of its replicas or a container whose health check does not
 * pass, Redis not answering PING, a database not answering a query.
 */
async function unhealthy(stores: Stores): Promise<string[]> {
  const problems: string[] = [];
  const states = containers().filter((c) => c.service !== 'jwt-keys');
  const want: Record<string, number> = { postgres: 1, redis: 1, nats: 1, emulators: 1, ...SCALE };
  for (const [service, n] of Object.entries(want)) {
    const healthy = states.filter(
      (c) => c.service === service && c.status === 'running' && c.health === 'healthy',
    );
    if (healthy.length < n) problems.push(`${service}: ${healthy.length} of ${n} healthy`);
  }
  const redis = running('redis')[0];
  const ping = redis ? docker(['exec', redis.id, 'redis-cli', 'ping']).stdout.trim() : '';
  if (ping !== 'PONG') problems.push(`redis: PING answered ${JSON.stringify(ping)}`);
  for (const service of ['auth', 'game', 'payments'] as const)
    await stores
      .query(service, 'select 1')
      .catch((e: Error) => problems.push(`${service}'s database: ${e.message}`));
  return problems;
}

function replicaCounts(): string {
  const states = containers().filter((c) => c.status === 'running');
  const n = (service: string) => states.filter((c) => c.service === service).length;
  return `${n('auth')}a ${n('game')}g ${n('payments')}p ${n('realtime')}r ${n('gateway')}gw`;
}

beforeAll(async () => {
  if (process.env.OMC_INFRA === 'native') {
    skipReason = 'OMC_INFRA=native: no containers wanted';
    return;
  }
  const got = await ensureEngine(join(ROOT, '.data', 'containers'), log);
  if ('skip' in got) {
    skipReason = got.skip;
    return;
  }
  engine = got.engine;
  log(
    `[containers] Docker engine ${engine.serverVersion}${engine.startedPid ? ' (started here)' : ''}; client ${engine.docker}; ${engine.compose.join(' ')}`,
  );
  removeLeftStacks();
  figures.bases = await baseImages(engine.docker, log);
  env = {
    ...process.env,
    ...figures.bases,
    // A round short enough to win in the journey.
    ROUND_TARGET: '30',
    // An event held by a game container that is killed goes to another after 5 s, not 30 s (the
    // scaled run's kill row; the same bound as the native matrix's).
    EVENT_ACK_WAIT_MS: '5000',
    MILESTONES: '10:5',
    SIGNUP_FREE_CLICKS: '10',
    RATE_LIMIT_PER_IP: '0',
    GATEWAY_PORT: String(await freePort()),
  };
  gatewayUrl = `http://127.0.0.1:${env.GATEWAY_PORT}`;
  // Collecting needs a verified email: auth's mail goes to a catcher on the host, on every address so
  // the containers reach it through host.docker.internal, and the journey reads its link there.
  const mailDir = join(ROOT, '.data', 'test', project);
  mkdirSync(mailDir, { recursive: true });
  mail = await startMailCatcher({
    dir: mailDir,
    env: process.env,
    ip: '0.0.0.0',
    logFile: createWriteStream(join(mailDir, 'maildev.log'), { flags: 'a' }),
  });
  env.SMTP_URL = `smtp://host.docker.internal:${mail.smtpPort}`;
  vendorOffline(log);
  const builds = composeBuilds(env);
  figures.coldIsCold =
    process.env.OMC_CONTAINERS_COLD === '1' ||
    builds.some((b) => docker(['image', 'inspect', b.image]).status !== 0);
  if (process.env.OMC_CONTAINERS_COLD === '1')
    forgetBuilds(
      engine.docker,
      builds.map((b) => b.image),
    );
  figures.cold = await buildImages(engine.docker, builds);
  figures.warm = await buildImages(engine.docker, builds);
  figures.sizes = imageSizes(engine.docker, [
    ...new Set([...builds.map((b) => b.image), ...Object.values(figures.bases)]),
  ]);

  const started = Date.now();
  const up = compose(['up', '-d', '--no-build']);
  // docker-compose v1 gives up on a dependency that is briefly unhealthy: the wait below decides.
  if (up.status !== 0) log(`[containers] compose up said:\n${up.stderr.slice(-2000)}`);
  const deadline = Date.now() + 240_000;
  for (;;) {
    const states = containers();
    const settled =
      states.length > 0 &&
      states.every((c) => c.health === 'healthy' || (c.status === 'exited' && c.exitCode === 0 && !c.health));
    if (settled && states.some((c) => c.service === 'gateway')) break;
    if (Date.now() > deadline) break;
    // Compose v1 may stop before starting the rest: ask again (already running ones stay).
    if (states.some((c) => c.status === 'created')) compose(['up', '-d', '--no-build']);
    await new Promise((r) => setTimeout(r, 1000));
  }
  figures.upToHealthy = (Date.now() - started) / 1000;
});

afterAll(async () => {
  await scaled.traffic?.stop();
  await scaled.balancer?.stop();
  if (engine) {
    const states = containers();
    if (states.some((c) => c.health && c.health !== 'healthy'))
      log(compose(['logs', '--tail', '40']).stdout.slice(-6000));
    const down = compose(['down', '-v', '--remove-orphans']);
    if (down.status !== 0) log(`[containers] compose down said:\n${down.stderr}`);
    await engine.stop();
  }
  if (mail) await killByPid(mail.pid);
  if (skipReason) log(`[containers] compose suite skipped: ${skipReason}`);
  else if (figures.cold) {
    log('\n[containers] figures');
    log(
      `  base images: ${
        Object.keys(figures.bases ?? {}).length
          ? Object.entries(figures.bases!)
              .map(([k, v]) => `${k}=${v}`)
              .join(', ')
          : 'upstream'
      }`,
    );
    log(
      `  first build (${figures.coldIsCold ? 'cold' : 'with the build cache'}): ${figures.cold.seconds.toFixed(1)} s; warm rebuild: ${figures.warm!.seconds.toFixed(1)} s`,
    );
    for (const [image, size] of Object.entries(figures.sizes ?? {})) log(`  ${image.padEnd(30)} ${mb(size)}`);
    log(`  up to healthy: ${figures.upToHealthy?.toFixed(1)} s`);
    if (figures.scaledUp !== undefined) log(`  up --scale to healthy: ${figures.scaledUp.toFixed(1)} s`);
    if (figures.matrix !== undefined)
      log(`  chaos matrix over the scaled stack: ${figures.matrix.toFixed(1)} s`);
  }
});

describe('docker compose, executed', () => {
  it('builds every image of the compose file, offline, from the lockfile', (ctx) => {
    if (skipReason) return ctx.skip(skipReason);
    for (const b of composeBuilds(env)) expect(docker(['image', 'inspect', b.image]).status, b.image).toBe(0);
    // Nothing changed between the two builds: the second is served from the cache.
    expect(figures.warm!.seconds).toBeLessThan(figures.cold!.seconds + 1);
  });

  it('starts every container and every health check passes', (ctx) => {
    if (skipReason) return ctx.skip(skipReason);
    const states = containers();
    const services = new Set(states.map((c) => c.service));
    for (const service of [
      'postgres',
      'redis',
      'nats',
      'jwt-keys',
      'emulators',
      'auth',
      'game',
      'payments',
      'realtime',
      'gateway',
    ])
      expect(services, service).toContain(service);
    for (const c of states) {
      if (c.service === 'jwt-keys') expect(c.exitCode, 'jwt-keys').toBe(0);
      else expect(`${c.service}: ${c.health}`).toBe(`${c.service}: healthy`);
    }
  });

  it('serves a whole journey through the compose gateway: register, click, live update, buy, win, collect', async (ctx) => {
    if (skipReason) return ctx.skip(skipReason);
    const outcome: JourneyOutcome = await journey(gatewayUrl, mail!.uiUrl);
    log(`[containers] journey: ${JSON.stringify(outcome)}`);
    expect(outcome.liveCounter).toBeGreaterThanOrEqual(1);
    expect(outcome.purchase).toEqual({ status: 200, success: true });
    expect(outcome.winningClick).toBe(30);
    expect(outcome.unverifiedCollect).toEqual({ status: 403, code: 'EMAIL_NOT_VERIFIED' });
    expect(outcome.collected.status).toBe(200);
    expect(outcome.collected.amount).toBeGreaterThan(0);
    expect(outcome.potLeft).toBe(0);
  });

  it('runs every container as a non-root user on a read-only root filesystem', (ctx) => {
    if (skipReason) return ctx.skip(skipReason);
    for (const c of containers()) {
      expect(c.readOnly, `${c.service} read-only root`).toBe(true);
      if (c.status !== 'running') continue;
      // Every process of the container, by the user it runs as (the server's, after its entrypoint).
      const top = docker(['top', c.id, '-eo', 'pid,uid,comm']).stdout.trim().split('\n').slice(1);
      expect(top.length, c.service).toBeGreaterThan(0);
      for (const line of top)
        expect(`${c.service}: uid ${line.trim().split(/\s+/)[1]}`).not.toBe(`${c.service}: uid 0`);
      const write = docker(['exec', c.id, 'sh', '-c', 'echo x > /probe']);
      expect(write.status, `${c.service} wrote to its root`).not.toBe(0);
    }
  });
});

describe('docker compose up --scale, under chaos', () => {
  it('loses nothing and doubles nothing over 2 auth, 3 game, 2 payments, 2 realtime and 2 gateways while containers are killed and stores paused, wiped and restarted', async (ctx) => {
    if (skipReason) return ctx.skip(skipReason);
    // The journey's stack, scaled: the services' settings change for traffic, so compose recreates them
    // beside their new replicas; the stores, their volumes and the images are the journey's.
    env = { ...env, ...SCALED_ENV, GATEWAY_PORT: await freePortRange() };
    const args = [
      'up',
      '-d',
      '--no-build',
      ...Object.entries(SCALE).flatMap(([service, n]) => ['--scale', `${service}=${n}`]),
    ];
    const started = Date.now();
    const up = compose(args, 600_000);
    if (up.status !== 0) log(`[containers] compose up --scale said:\n${up.stderr.slice(-2000)}`);
    const settled = await untilSettled(SCALE, 420_000, args);
    figures.scaledUp = (Date.now() - started) / 1000;
    expect(settled, `every replica healthy: ${replicaCounts()}`).toBe(true);

    // One balancer in front of the gateways, as a Service is; the invariants read from Postgres and the
    // provider's emulator on their containers' addresses.
    scaled.balancer = await startBalancer(running('gateway').map((c) => hostPort(c.id)));
    useBaseUrl(scaled.balancer.url);
    const postgres = `postgres://omc:${env.POSTGRES_PASSWORD ?? 'dev-only-postgres'}@${ipOf(only('postgres').id)}:5432`;
    const stores = new Stores(
      { auth: `${postgres}/omc_auth`, game: `${postgres}/omc_game`, payments: `${postgres}/omc_payments` },
      `http://${ipOf(only('emulators').id)}:3100`,
    );
    const players: Player[] = [];
    for (let i = 0; i < PLAYERS; i += 6)
      players.push(...(await Promise.all(Array.from({ length: 6 }, () => register('scaled')))));
    const probe = await register('probe');
    // Asks for the state and clicks while a store is paused (its clicks are nobody's traffic).
    const stalled = await register('stalled');
    for (const p of [...players, probe, stalled]) await untilGameKnows(p);
    const traffic = new Traffic(players, PAUSE_MS);
    scaled.traffic = traffic;
    const matrix = new ChaosMatrix({
      stores,
      traffic,
      probe,
      replicas: replicaCounts,
      roundTarget: Number(SCALED_ENV.ROUND_TARGET),
      signupFreeClicks: Number(env.SIGNUP_FREE_CLICKS),
      settleMs: 60_000,
      staleBoundMs: 5_000,
      title: 'containers chaos matrix (docker compose up --scale)',
      unhealthy: () => unhealthy(stores),
    });
    traffic.start();
    await sleep(3000);

    /** What the state and a click answered while each store was paused, how fast, and why not if not. */
    const stallAnswers: ({ store: string; request: string } & ProbeAnswer)[] = [];
    // Each on a connection of its own: what is timed is the system, not the test's connection pool.
    const ask = async (store: string, request: string, method: string, path: string, token?: string) => {
      const answer = await requestAlone(method, path, { token, timeoutMs: STALL_ANSWER_BOUND_MS });
      stallAnswers.push({ store, request, ...answer, body: undefined });
    };
    const pause = async (service: string) => {
      const { id } = only(service);
      docker(['pause', id]);
      try {
        await sleep(STALL_PROBE_AFTER_MS);
        await ask(service, 'GET /api/game/state', 'GET', '/api/game/state');
        await ask(service, 'POST /api/game/click', 'POST', '/api/game/click', stalled.token);
        await sleep(PAUSE_STORE_MS - STALL_PROBE_AFTER_MS);
      } finally {
        docker(['unpause', id]);
      }
    };
    const rows: Row[] = [
      {
        name: 'docker kill a game container mid-round',
        async fault(buy) {
          await buy();
          const victim = running('game')[1]!;
          docker(['kill', '--signal', 'KILL', victim.id]);
          // Started again, as Kubernetes restarts a pod (a no-op if the engine's restart policy did).
          matrix.restarting = sleep(2000).then(() => {
            docker(['start', victim.id]);
          });
        },
      },
      {
        name: 'Redis wiped (FLUSHALL)',
        async fault(buy) {
          await buy();
          // As the operators' Redis user: no service's user may FLUSHALL, the default user only PING.
          const admin = ['--user', 'admin', '--pass', env.REDIS_ADMIN_PASSWORD ?? 'dev-only-admin-redis'];
          const wiped = docker([
            'exec',
            only('redis').id,
            'redis-cli',
            '--no-auth-warning',
            ...admin,
            'FLUSHALL',
          ]);
          if (wiped.stdout.trim() !== 'OK') throw new Error(`FLUSHALL: ${wiped.stdout}${wiped.stderr}`);
        },
      },
      { name: 'docker pause Redis 15 s', fault: async (buy) => (await buy(), pause('redis')) },
      { name: 'docker pause NATS 15 s', fault: async (buy) => (await buy(), pause('nats')) },
      { name: 'docker pause Postgres 15 s', fault: async (buy) => (await buy(), pause('postgres')) },
      {
        name: 'NATS restarted',
        async fault(buy) {
          await buy();
          const restarted = docker(['restart', '--time', '10', only('nats').id]);
          if (restarted.status !== 0) throw new Error(`docker restart nats: ${restarted.stderr}`);
        },
      },
    ];
    const matrixStarted = Date.now();
    let storesLogged = false;
    for (const row of rows) {
      const result = await matrix.run(row);
      log(matrix.format());
      // An outbox that did not drain: what its rows and its service's containers said.
      for (const service of ['auth', 'game', 'payments'] as const) {
        if (!result.lost.some((f) => f.startsWith(`${service} outbox`))) continue;
        const left = await stores.query(
          service,
          `select subject, attempts, claimed_until, created_at from outbox where published_at is null`,
        );
        log(`[containers] ${service}'s unpublished outbox rows: ${JSON.stringify(left)}`);
        log(compose(['logs', '--tail', '60', service]).stdout.slice(-8000));
      }
      if (!storesLogged && result.lost.some((f) => f.startsWith('the row failed'))) {
        // What the stores said when a row could not even be judged.
        storesLogged = true;
        for (const service of ['postgres', 'redis', 'nats']) {
          const logs = docker(['logs', '--tail', '40', only(service).id]);
          log(`[containers] ${service}'s last lines:\n${logs.stdout}${logs.stderr}`);
        }
      }
    }
    await traffic.stop();
    figures.matrix = (Date.now() - matrixStarted) / 1000;
    log(`[containers] answers while a store was paused: ${JSON.stringify(stallAnswers)}`);
    for (const a of stallAnswers) {
      const what = `${a.request} with ${a.store} paused`;
      expect
        .soft(a.status, `${what}: answered within ${STALL_ANSWER_BOUND_MS} ms (${a.error} after ${a.ms} ms)`)
        .not.toBe(0);
      if (a.status === 503) expect.soft(a.retryAfter, `${what}: Retry-After`).toMatch(/^\d+$/);
      else expect.soft(a.status, `${what}: served or refused with 503`).toBeLessThan(300);
    }
    expect(stallAnswers.map((a) => `${a.store} ${a.request}`)).toHaveLength(6);
    for (const r of matrix.results) {
      expect.soft(r.lost, `${r.row}: lost`).toEqual([]);
      expect.soft(r.doubled, `${r.row}: doubled`).toEqual([]);
      expect.soft(r.unserved, `${r.row}: the web app or the winners list not served`).toBe(0);
      expect
        .soft(r.recounted, `${r.row}: clicks lost before their flush, beyond the last 2 s of clicks`)
        .toBeLessThanOrEqual(r.recountBound);
    }
  }, 1_200_000);
});

describe('an engine that answers but cannot pull', () => {
  it('leaves the servers to the native ones, with a one-line warning', async (ctx) => {
    if (skipReason) return ctx.skip(skipReason);
    // Images from a registry that does not exist, so the pull fails on any machine (here none answers).
    const prefix = process.env.TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX;
    process.env.TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX = 'registry.invalid/';
    const { OMC_INFRA: _infra, DATABASE_URL: _db, REDIS_URL: _redis, NATS_URL: _nats, ...rest } = process.env;
    const lines: string[] = [];
    try {
      const infra = await startInfra({
        dir: join(ROOT, '.data', 'test', `fallback-${process.pid}`),
        env: rest,
        log: (line) => lines.push(line),
      });
      try {
        expect(infra.source).toBe('native');
        expect(infra.pids.postgres).toBeGreaterThan(0);
        const warnings = lines.filter((l) => /warning/i.test(l));
        expect(warnings).toHaveLength(1);
        expect(warnings[0]).toMatch(/^\[infra\] warning: .*native servers/);
        expect(warnings[0]).not.toContain('\n');
      } finally {
        await infra.stop();
      }
    } finally {
      if (prefix === undefined) delete process.env.TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX;
      else process.env.TESTCONTAINERS_HUB_IMAGE_NAME_PREFIX = prefix;
    }
  });
});
