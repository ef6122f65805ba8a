// docker-compose.yml, executed: every image built (offline, from the lockfile), the stack started and
// healthy, a player's whole journey through the compose gateway, every container non-root on a read-only
// root, then `down -v`. Skipped, with the reason printed, only where no engine can be started, or when
// OMC_INFRA=native asks for no containers at all.
import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, killByPid, startInfra, startMailCatcher, type MailCatcher } from '@omc/infra';
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
  sizes?: Record<string, number>;
  bases?: Record<string, string>;
} = {};

function compose(args: string[], timeout = 300_000) {
  return spawnSync(
    engine!.compose[0]!,
    [...engine!.compose.slice(1), '-p', project, '-f', join(ROOT, 'docker-compose.yml'), ...args],
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
  figures.bases = await baseImages(engine.docker, log);
  env = {
    ...process.env,
    ...figures.bases,
    // A round short enough to win in the journey.
    ROUND_TARGET: '30',
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
