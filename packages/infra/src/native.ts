// PostgreSQL, Redis and NATS (JetStream) as native processes from Debian's packages, on free loopback
// ports, with their data in a folder of the project's. Used where no URLs are given and no Docker engine runs.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import {
  chownSync,
  existsSync,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RedisUserName } from '@omc/contracts';
import { randomRedisPasswords, redisAclFile, redisUrlWithUser } from './redis-acl.js';

export interface ServerHandle {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

const PG_PACKAGE_BIN = '/usr/lib/postgresql';
const isRoot = process.getuid?.() === 0;

export class InfraError extends Error {}

/**
 * The ports the kernel hands out as the source port of outgoing connections (Linux's
 * ip_local_port_range). A listening port chosen from this range can be taken by any outgoing connection
 * between the choice and the listen: a test's client talking to Redis took a game instance's port once,
 * and the instance failed its start with EADDRINUSE.
 */
function ephemeralRange(): [number, number] {
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8')
      .trim()
      .split(/\s+/)
      .map(Number);
    if (low && high) return [low, high];
  } catch {
    // not Linux: the IANA range
  }
  return [49152, 65535];
}

/**
 * Ports `fetch` refuses to connect to (the Fetch standard's "bad ports", which undici enforces): a
 * service given one could never be probed ready. 10080 is the only one at or above 10000.
 */
export const FETCH_BAD_PORTS: ReadonlySet<number> = new Set([10080]);

/** Ports this process handed out: never the same one twice, even before its server listens. */
const handedOut = new Set<number>();

function bindsOn(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A loopback port to listen on: free now, below the range outgoing connections take their source ports
 * from, one `fetch` can reach, and not handed out before by this process. Where that range leaves too little room below it,
 * any port the kernel picks.
 */
export async function freePort(): Promise<number> {
  const [ephemeralLow] = ephemeralRange();
  const low = 10_000;
  if (ephemeralLow - low >= 5_000) {
    for (let attempt = 0; attempt < 100; attempt++) {
      const port = low + Math.floor(Math.random() * (ephemeralLow - low));
      if (handedOut.has(port) || FETCH_BAD_PORTS.has(port) || !(await bindsOn(port))) continue;
      handedOut.add(port);
      return port;
    }
  }
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function which(bin: string): string | undefined {
  const found = spawnSync('sh', ['-c', `command -v ${bin}`], { encoding: 'utf8' });
  return found.status === 0 ? found.stdout.trim() : undefined;
}

function postgresBinDir(): string | undefined {
  if (!existsSync(PG_PACKAGE_BIN)) return undefined;
  const versions = readdirSync(PG_PACKAGE_BIN)
    .filter((v) => existsSync(join(PG_PACKAGE_BIN, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(PG_PACKAGE_BIN, versions[0], 'bin') : undefined;
}

/**
 * Installs the Debian packages named (apt-get, as root) or, where that cannot be done, throws with `why`
 * and the command to run. Waits for another apt-get's lock (test packages run side by side).
 */
export function installDebianPackages(packages: string[], why: string, log: (line: string) => void): void {
  if (packages.length === 0) return;
  if (!isRoot || !which('apt-get'))
    throw new InfraError(
      `${why} Install ${packages.join(', ')} (for example: sudo apt-get install -y ${packages.join(' ')}).`,
    );
  log(`[infra] installing ${packages.join(', ')} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const lock = ['-o', 'DPkg::Lock::Timeout=600'];
  execFileSync('apt-get', [...lock, 'update'], { stdio: 'inherit', env });
  execFileSync('apt-get', [...lock, 'install', '-y', '--no-install-recommends', ...packages], {
    stdio: 'inherit',
    env,
  });
}

/** Installs the Debian package of each command not on the PATH. */
export function ensureDebianCommands(
  needs: { command: string; pkg: string }[],
  why: string,
  log: (line: string) => void = console.log,
): void {
  const missing = needs.filter((n) => !which(n.command)).map((n) => n.pkg);
  installDebianPackages([...new Set(missing)], why, log);
}

/** Installs Debian's packages for whichever servers are missing, or says exactly what to do. */
export function ensureNativeServers(log: (line: string) => void = console.log): void {
  const missing: string[] = [];
  if (!postgresBinDir()) missing.push('postgresql');
  if (!which('redis-server')) missing.push('redis-server');
  if (!which('redis-cli')) missing.push('redis-tools');
  if (!which('nats-server')) missing.push('nats-server');
  installDebianPackages(
    missing,
    'PostgreSQL, Redis and NATS are needed (or DATABASE_URL, REDIS_URL and NATS_URL pointing at running servers).',
    log,
  );
}

/** Debian's docker-compose, which validates docker-compose.yml without an engine; installed when missing. */
export function ensureDockerCompose(log: (line: string) => void = console.log): void {
  ensureDebianCommands(
    [{ command: 'docker-compose', pkg: 'docker-compose' }],
    'docker-compose is needed to validate docker-compose.yml.',
    log,
  );
}

/** tmux, the real terminal in which the stop tests press Ctrl-C on `npm start`; installed when missing. */
export function ensureTmux(log: (line: string) => void = console.log): void {
  ensureDebianCommands(
    [{ command: 'tmux', pkg: 'tmux' }],
    'The stop tests need tmux (a real terminal).',
    log,
  );
}

/** promtool (Debian's prometheus package), which checks and unit-tests the alerting rules; installed when missing. */
export function ensurePromtool(log: (line: string) => void = console.log): void {
  ensureDebianCommands(
    [
      { command: 'promtool', pkg: 'prometheus' },
      { command: 'prometheus', pkg: 'prometheus' },
    ],
    "The alerting rules are checked with Debian's promtool (package prometheus).",
    log,
  );
}

/** Debian's Chromium, which the browser tests drive; installed when missing. Returns its path. */
export function ensureChromium(log: (line: string) => void = console.log): string {
  ensureDebianCommands(
    [{ command: 'chromium', pkg: 'chromium' }],
    "The browser tests need Debian's Chromium.",
    log,
  );
  return '/usr/bin/chromium';
}

async function waitFor(check: () => Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new InfraError(`${what} did not become ready within ${timeoutMs} ms`);
}

function tcpOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** A process and every process under it (PostgreSQL's postmaster and its backends), from /proc. */
export function withDescendants(pid: number): number[] {
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

export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Signals a process by its PID and waits for it to go, killing it when it outstays `timeoutMs`. */
export async function killByPid(
  pid: number,
  signal: NodeJS.Signals = 'SIGTERM',
  timeoutMs = 10_000,
): Promise<void> {
  if (!processAlive(pid)) return;
  process.kill(pid, signal);
  const deadline = Date.now() + timeoutMs;
  while (processAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  if (processAlive(pid)) process.kill(pid, 'SIGKILL');
}

function asPostgresUser(cmd: string, args: string[]): { cmd: string; args: string[] } {
  return isRoot ? { cmd: 'runuser', args: ['-u', 'postgres', '--', cmd, ...args] } : { cmd, args };
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').split('\n')[0]);
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function initCluster(bin: string, dir: string): void {
  const init = asPostgresUser(join(bin, 'initdb'), [
    '-D',
    dir,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
  ]);
  execFileSync(init.cmd, init.args, { stdio: 'ignore' });
}

/**
 * A fresh cluster made once per checkout and PostgreSQL version (in .data/cache), which each throwaway
 * server copies instead of running initdb: a test run starts a score of servers, and initdb costs over a
 * CPU-second each, a copy a tenth of that. Made under a name of its own and renamed into place, so
 * servers starting side by side never copy a half-made one.
 */
function clusterTemplate(bin: string): string {
  const root = fileURLToPath(new URL('../../..', import.meta.url));
  const template = join(root, '.data', 'cache', `postgres-${dirname(bin).split('/').at(-1)}-cluster`);
  if (existsSync(join(template, 'PG_VERSION'))) return template;
  const making = `${template}.${process.pid}.${Date.now()}`;
  mkdirSync(making, { recursive: true });
  if (isRoot) chownToPostgres(making);
  initCluster(bin, making);
  try {
    renameSync(making, template);
  } catch {
    // Another server made it first: theirs is the same.
    rmSync(making, { recursive: true, force: true });
  }
  return template;
}

function chownToPostgres(dir: string): void {
  chownSync(
    dir,
    Number(execFileSync('id', ['-u', 'postgres']).toString()),
    Number(execFileSync('id', ['-g', 'postgres']).toString()),
  );
}

/**
 * `durable` (npm start) keeps Postgres' crash safety; without it (tests, benchmarks) fsync, synchronous
 * commit and full-page writes are off: fast, and a machine crash may corrupt the data, which tests throw
 * away anyway.
 */
export async function startPostgres(
  dir: string,
  opts: { port?: number; durable?: boolean } = {},
): Promise<ServerHandle> {
  const bin = postgresBinDir();
  if (!bin) throw new InfraError('PostgreSQL is not installed (Debian package postgresql)');
  mkdirSync(dir, { recursive: true });
  if (isRoot) chownToPostgres(dir);
  if (!existsSync(join(dir, 'PG_VERSION'))) {
    if (opts.durable) initCluster(bin, dir);
    else execFileSync('cp', ['-a', `${clusterTemplate(bin)}/.`, dir]);
  }
  const stale = readPid(join(dir, 'postmaster.pid'));
  if (stale && processAlive(stale)) await killByPid(stale, 'SIGINT');
  const port = opts.port ?? (await freePort());
  const options = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-k ${dir}`,
    '-c max_connections=400',
    ...(opts.durable ? [] : ['-c fsync=off', '-c synchronous_commit=off', '-c full_page_writes=off']),
  ].join(' ');
  const start = asPostgresUser(join(bin, 'pg_ctl'), [
    '-D',
    dir,
    '-o',
    options,
    '-l',
    join(dir, 'server.log'),
    '-w',
    '-t',
    '60',
    'start',
  ]);
  execFileSync(start.cmd, start.args, { stdio: 'ignore' });
  const pid = readPid(join(dir, 'postmaster.pid'));
  if (!pid) throw new InfraError(`PostgreSQL did not write its PID in ${dir}`);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    pid,
    // Fast shutdown by PID (SIGINT), as pg_ctl -m fast does.
    stop: () => killByPid(pid, 'SIGINT', 30_000),
  };
}

/** A native Redis: every service's ACL user (packages/contracts' REDIS_USERS) with the passwords here. */
export interface RedisHandle extends ServerHandle {
  passwords: Record<RedisUserName, string>;
  /** The URL a service connects with: its own user, its own keys and commands only. */
  urlFor(user: RedisUserName): string;
}

/**
 * Redis on loopback with an ACL file: a user per service (random passwords, or `passwords`: a restart
 * keeps them), and the open default user for test harnesses (loopback only, as NATS' `loopback-tests`).
 */
export async function startRedis(
  dir: string,
  opts: { appendOnly?: boolean; port?: number; passwords?: Record<RedisUserName, string> } = {},
): Promise<RedisHandle> {
  if (!which('redis-server')) throw new InfraError('Redis is not installed (Debian package redis-server)');
  mkdirSync(dir, { recursive: true });
  const port = opts.port ?? (await freePort());
  const pidFile = join(dir, 'redis.pid');
  const stale = readPid(pidFile);
  if (stale && processAlive(stale)) await killByPid(stale);
  // A crashed Redis leaves its PID file: removed, so the wait below reads the new server's PID.
  rmSync(pidFile, { force: true });
  const passwords = opts.passwords ?? randomRedisPasswords();
  const aclFile = join(dir, 'users.acl');
  writeFileSync(aclFile, redisAclFile(passwords, { openDefault: true }), { mode: 0o600 });
  execFileSync('redis-server', [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--aclfile',
    aclFile,
    '--save',
    '',
    '--appendonly',
    opts.appendOnly ? 'yes' : 'no',
    '--appendfsync',
    'everysec',
    '--databases',
    '64',
    '--maxclients',
    '20000',
    '--daemonize',
    'yes',
    '--pidfile',
    pidFile,
    '--logfile',
    join(dir, 'redis.log'),
  ]);
  await waitFor(() => tcpOpen(port), `Redis on port ${port}`);
  await waitFor(async () => readPid(pidFile) !== undefined, 'Redis PID file');
  const pid = readPid(pidFile)!;
  const url = `redis://127.0.0.1:${port}`;
  return {
    url,
    pid,
    stop: () => killByPid(pid),
    passwords,
    urlFor: (user) => redisUrlWithUser(url, user, passwords[user]),
  };
}

/**
 * NATS with JetStream; `config` (the users and their permissions, packages/infra/src/nats-config.ts) is
 * written to the data folder and given to the server.
 */
export async function startNats(
  dir: string,
  opts: { port?: number; config?: string } = {},
): Promise<ServerHandle> {
  if (!which('nats-server')) throw new InfraError('NATS is not installed (Debian package nats-server)');
  mkdirSync(join(dir, 'jetstream'), { recursive: true });
  const port = opts.port ?? (await freePort());
  const pidFile = join(dir, 'nats.pid');
  const stale = readPid(pidFile);
  if (stale && processAlive(stale)) await killByPid(stale);
  const logFd = openSync(join(dir, 'nats.log'), 'a');
  const configFile = join(dir, 'nats.conf');
  if (opts.config !== undefined) writeFileSync(configFile, opts.config, { mode: 0o600 });
  const child = spawn(
    'nats-server',
    [
      ...(opts.config !== undefined ? ['-c', configFile] : []),
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '-js',
      '-sd',
      join(dir, 'jetstream'),
      '-P',
      pidFile,
    ],
    {
      detached: true,
      stdio: ['ignore', logFd, logFd],
    },
  );
  child.unref();
  await waitFor(() => tcpOpen(port), `NATS on port ${port}`);
  const pid = child.pid!;
  return { url: `nats://127.0.0.1:${port}`, pid, stop: () => killByPid(pid) };
}

export function removeDir(dir: string): void {
  if (existsSync(dir) && statSync(dir).isDirectory()) rmSync(dir, { recursive: true, force: true });
}
