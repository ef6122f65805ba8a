// The whole system as processes on this machine: infrastructure, provider emulators, every service and
// the gateway, each started as its package's `start` script would, wired by environment variables.
// `npm start`, the end-to-end and reliability suites and the benchmarks all start it through here.
import { createRequire } from 'node:module';
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  writeFileSync,
  type WriteStream,
} from 'node:fs';
import { join } from 'node:path';
import { BUS_USERS, type BusUserName } from '@omc/contracts';
import { ensureDatabase } from './databases.js';
import { startBalancer, type Balancer } from './balancer.js';
import { startInfra, type Infra } from './infra.js';
import { startMailCatcher, type MailCatcher } from './mail-catcher.js';
import { freePort } from './native.js';

export type DeployableName = 'emulators' | 'auth' | 'game' | 'payments' | 'realtime' | 'gateway';

const isBusUser = (name: DeployableName): name is BusUserName => name in BUS_USERS;

export interface Deployable {
  name: DeployableName;
  /** Package folder, relative to the workspace root. */
  dir: string;
  defaultPort: number;
  /** Where /healthz, /readyz and /metrics answer when not on `defaultPort` (the gateway's internal listener). */
  internalPort?: number;
  /** Where the routes only other services call answer (its INTERNAL_PORT): the game's, for auth alone. */
  callsPort?: number;
  /** Its own database, for the services that own tables. */
  database?: string;
}

export const DEPLOYABLES: readonly Deployable[] = [
  { name: 'emulators', dir: 'packages/emulators', defaultPort: 3100 },
  { name: 'auth', dir: 'services/auth', defaultPort: 3001, database: 'omc_auth' },
  { name: 'game', dir: 'services/game', defaultPort: 3002, callsPort: 3012, database: 'omc_game' },
  { name: 'payments', dir: 'services/payments', defaultPort: 3003, database: 'omc_payments' },
  { name: 'realtime', dir: 'services/realtime', defaultPort: 3004 },
  { name: 'gateway', dir: 'gateway', defaultPort: 8080, internalPort: 9080 },
];

export interface SystemOptions {
  root: string;
  /** Folder for data, keys and logs. */
  dir: string;
  /** Keep data between runs (npm start); default false, for tests and benchmarks. */
  persistent?: boolean;
  /** Default ports (npm start) or free ones (tests, benchmarks: the default). */
  ports?: 'default' | 'free';
  /** Environment given to every process (after the system's own wiring, so it can override). */
  env?: NodeJS.ProcessEnv;
  /** Extra environment per process, e.g. two realtime instances. */
  envFor?: Partial<Record<DeployableName, NodeJS.ProcessEnv>>;
  /** Print each process's output with a prefix, or only write it to dir/logs (the default). */
  logs?: 'inherit' | 'files';
  /** How many realtime instances (they share one audience through Redis). */
  realtimeInstances?: number;
  /** How long each process may take to answer /readyz 200 at start (default 60 s). */
  readyTimeoutMs?: number;
  /**
   * How many processes of each part (default one; `realtimeInstances` for realtime when not given here).
   * A part with several processes is reached through a round-robin TCP balancer (as a Kubernetes Service
   * spreads over pods): its URL in the others' wiring and in `urls` is the balancer's; realtime's
   * instances are listed one by one in REALTIME_URLS, as before. Instances after the first are named
   * `<part>-2`, `<part>-3`, ...
   */
  instances?: Partial<Record<DeployableName, number>>;
  redisAppendOnly?: boolean;
  log?: (line: string) => void;
  /**
   * Start the development mail catcher (maildev) and send auth's mail to it; on unless SMTP_URL is
   * given in `env`, which then names the mail server to use.
   */
  mailCatcher?: boolean;
  /** Deployables run under `tsx watch`: restarted when a file they import changes (npm start -- --watch game). */
  watch?: readonly string[];
}

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

export interface System {
  infra: Infra;
  gatewayUrl: string;
  urls: Partial<Record<DeployableName, string>>;
  /** Where each part's /healthz, /readyz and /metrics answer (for the gateway, not its public port). */
  internalUrls: Partial<Record<DeployableName, string>>;
  /** Each part's database (tests read the record, e.g. run payments' ledger check on it). */
  databaseUrls: Partial<Record<DeployableName, string>>;
  processes: RunningProcess[];
  keys: KeyPair;
  /** Each service's own key for its internal calls (SERVICE_PRIVATE_KEY; the others hold its public key). */
  serviceKeys: Record<CallingService, KeyPair>;
  admin: { username: string; email: string; password: string };
  /** The development mail catcher, when started. */
  mail?: MailCatcher;
  /** The balancer in front of each part that runs several processes (not realtime). */
  balancers: Partial<Record<DeployableName, Balancer>>;
  /** Stops one process by its PID (SIGTERM, or SIGKILL to simulate a crash). */
  stopProcess(name: string, signal?: NodeJS.Signals): Promise<void>;
  /** Starts a stopped process again with the same port and environment. */
  restartProcess(name: string): Promise<void>;
  stop(): Promise<void>;
}

export interface KeyPair {
  publicKey: string;
  privateKey: string;
}

/** The services that make and answer internal calls, each with a key of its own. */
export type CallingService = 'auth' | 'game' | 'payments';
const CALLING_SERVICES: readonly CallingService[] = ['auth', 'game', 'payments'];

function newKeyPair(): KeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  return {
    publicKey: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

/** Development keys, kept in `dir` when persistent: `name` for the file, `make` for new ones. */
function loadOrCreate<T>(dir: string, persistent: boolean, name: string, make: () => T): T {
  const file = join(dir, name);
  if (persistent && existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as T;
  const keys = make();
  mkdirSync(dir, { recursive: true });
  writeFileSync(file, JSON.stringify(keys), { mode: 0o600 });
  return keys;
}

/** The environment of every service's internal-call keys: its own private key, the others' public keys. */
function serviceKeyEnv(keys: Record<CallingService, KeyPair>, name: DeployableName): NodeJS.ProcessEnv {
  if (!CALLING_SERVICES.includes(name as CallingService)) return {};
  return {
    SERVICE_PRIVATE_KEY: keys[name as CallingService].privateKey,
    AUTH_SERVICE_PUBLIC_KEY: keys.auth.publicKey,
    GAME_SERVICE_PUBLIC_KEY: keys.game.publicKey,
    PAYMENTS_SERVICE_PUBLIC_KEY: keys.payments.publicKey,
  };
}

async function waitReady(url: string, child: ChildProcess, name: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`${name} exited with code ${child.exitCode} during start-up (see its log)`);
    try {
      const response = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${name} was not ready at ${url}/readyz within ${timeoutMs} ms`);
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

async function killProcess(
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

export async function startSystem(given: SystemOptions): Promise<System> {
  const options = { persistent: false, ports: 'free' as const, logs: 'files' as const, ...given };
  const log = options.log ?? ((line: string) => console.log(line));
  const present = DEPLOYABLES.filter((d) => existsSync(join(options.root, d.dir, 'package.json')));
  mkdirSync(join(options.dir, 'logs'), { recursive: true });
  const baseEnv = { ...process.env, ...options.env };

  const infra = await startInfra({
    dir: join(options.dir, 'servers'),
    persistent: options.persistent,
    redisAppendOnly: options.redisAppendOnly,
    env: baseEnv,
    log,
  });
  log(
    `[system] PostgreSQL ${infra.databaseUrl}, Redis ${infra.redisUrl}, NATS ${infra.natsUrl} (${infra.source})`,
  );
  const keys = loadOrCreate(options.dir, options.persistent, 'jwt-keys.json', newKeyPair);
  const serviceKeys = loadOrCreate(
    options.dir,
    options.persistent,
    'service-keys.json',
    () =>
      Object.fromEntries(CALLING_SERVICES.map((s) => [s, newKeyPair()])) as Record<CallingService, KeyPair>,
  );
  const admin = {
    username: baseEnv.BOOTSTRAP_ADMIN_USERNAME ?? 'admin',
    email: baseEnv.BOOTSTRAP_ADMIN_EMAIL ?? 'admin@example.com',
    password: baseEnv.BOOTSTRAP_ADMIN_PASSWORD ?? 'change-me-admin',
  };

  const ports = new Map<string, number>();
  const countOf = (d: Deployable) =>
    Math.max(
      1,
      options.instances?.[d.name] ?? (d.name === 'realtime' ? (options.realtimeInstances ?? 1) : 1),
    );
  const instanceNames = (d: Deployable) =>
    Array.from({ length: countOf(d) }, (_, i) => (i === 0 ? d.name : `${d.name}-${i + 1}`));
  for (const d of present) {
    for (const [i, name] of instanceNames(d).entries()) {
      ports.set(
        name,
        options.ports === 'default' ? d.defaultPort + (i === 0 ? 0 : 100 + i) : await freePort(),
      );
      if (d.internalPort)
        ports.set(`${name}:internal`, options.ports === 'default' ? d.internalPort : await freePort());
      // The game's listener for auth's calls (its INTERNAL_PORT).
      if (d.callsPort)
        ports.set(`${name}:calls`, options.ports === 'default' ? d.callsPort : await freePort());
    }
  }
  const instanceUrl = (name: string) => `http://127.0.0.1:${ports.get(name)}`;
  const internalUrl = (name: string) =>
    instanceUrl(ports.has(`${name}:internal`) ? `${name}:internal` : name);
  const realtimeUrls = [...ports.keys()]
    .filter((n) => n.startsWith('realtime') && !n.endsWith(':internal'))
    .map(instanceUrl);
  // Several processes of a part (other than realtime, which the gateway spreads itself) sit behind one
  // balancer; everything else reaches the part through it.
  const balancers: Partial<Record<DeployableName, Balancer>> = {};
  for (const d of present) {
    if (d.name === 'realtime' || countOf(d) < 2) continue;
    balancers[d.name] = await startBalancer(instanceNames(d).map((n) => ports.get(n)!));
  }
  const stopBalancers = async () => {
    for (const b of Object.values(balancers)) await b.stop();
  };
  const url = (name: string) => balancers[name as DeployableName]?.url ?? instanceUrl(name);

  const databases: Partial<Record<DeployableName, string>> = {};
  for (const d of present)
    if (d.database) databases[d.name] = await ensureDatabase(infra.databaseUrl, d.database);

  const wiring: NodeJS.ProcessEnv = {
    REDIS_URL: infra.redisUrl,
    JWT_PUBLIC_KEY: keys.publicKey,
    AUTH_URL: url('auth'),
    GAME_URL: url('game'),
    ...(ports.has('game:calls') ? { GAME_INTERNAL_URL: url('game:calls') } : {}),
    PAYMENTS_URL: url('payments'),
    REALTIME_URLS: realtimeUrls.join(','),
    BRAINTREE_EMULATOR_URL: url('emulators'),
    PAYPAL_API_URL: url('emulators'),
    WEB_DIST: join(options.root, 'web', 'dist'),
    BOOTSTRAP_ADMIN_USERNAME: admin.username,
    BOOTSTRAP_ADMIN_EMAIL: admin.email,
    BOOTSTRAP_ADMIN_PASSWORD: admin.password,
    HOST: '127.0.0.1',
  };

  let mail: MailCatcher | undefined;
  const launchMail = (preferredPorts: { smtp: number; ui: number }) =>
    startMailCatcher({
      dir: options.dir,
      env: baseEnv,
      preferredPorts,
      logFile: createWriteStream(join(options.dir, 'logs', 'maildev.log'), { flags: 'a' }),
      ...(options.logs === 'inherit'
        ? { onOutput: (line: string) => process.stdout.write(`[maildev] ${line}\n`) }
        : {}),
    });
  if (options.mailCatcher !== false && !baseEnv.SMTP_URL) {
    // SMTP_PORT and MAIL_UI_PORT when given; else maildev's own (1025, 1080) for npm start when free,
    // and free ones for tests and benchmarks.
    mail = await launchMail({
      smtp: Number(baseEnv.SMTP_PORT ?? (options.ports === 'default' ? 1025 : 0)),
      ui: Number(baseEnv.MAIL_UI_PORT ?? (options.ports === 'default' ? 1080 : 0)),
    }).catch(async (error) => {
      await stopBalancers();
      await infra.stop();
      throw error;
    });
    wiring.SMTP_URL = mail.smtpUrl;
  }
  // Links in account mail point at the web app as this system serves it.
  if (ports.has('gateway')) wiring.PUBLIC_WEB_URL = url('gateway');

  const processes: RunningProcess[] = [];
  const spawnProcess = async (
    name: string,
    deployable: Deployable,
    env: NodeJS.ProcessEnv,
  ): Promise<RunningProcess> => {
    const logFile = createWriteStream(join(options.dir, 'logs', `${name}.log`), { flags: 'a' });
    // Watched: tsx's own watch mode (the package's tsx), which restarts it when a file it imports changes.
    const args = options.watch?.includes(deployable.name)
      ? [
          createRequire(join(options.root, deployable.dir, 'package.json')).resolve('tsx/cli'),
          'watch',
          'src/main.ts',
        ]
      : ['--import', 'tsx', 'src/main.ts'];
    const child = spawn(process.execPath, args, {
      cwd: join(options.root, deployable.dir),
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    pipeOutput(child, name, options.logs, logFile);
    child.once('exit', () => logFile.end());
    const running: RunningProcess = {
      name,
      deployable,
      port: ports.get(name)!,
      url: instanceUrl(name),
      internalUrl: internalUrl(name),
      env,
      child,
      pid: child.pid!,
    };
    try {
      await waitReady(running.internalUrl, child, name, options.readyTimeoutMs);
    } catch (error) {
      // A process that never became ready is not left running behind the failed start.
      await killProcess(child, 'SIGKILL');
      throw error;
    }
    return running;
  };

  const stopAll = async () => {
    for (const p of [...processes].reverse()) await killProcess(p.child);
    if (mail) await killProcess(mail.child);
    await stopBalancers();
    await infra.stop();
  };

  try {
    // Order: emulators, then services (in parallel), then the gateway.
    const stages: DeployableName[][] = [
      ['emulators'],
      ['auth', 'game', 'payments'],
      ['realtime'],
      ['gateway'],
    ];
    for (const stage of stages) {
      const starting: Promise<RunningProcess>[] = [];
      for (const d of present.filter((p) => stage.includes(p.name))) {
        for (const name of instanceNames(d)) {
          const env: NodeJS.ProcessEnv = {
            ...wiring,
            ...(d.name === 'auth' ? { JWT_PRIVATE_KEY: keys.privateKey } : {}),
            ...serviceKeyEnv(serviceKeys, d.name),
            ...baseEnv,
            // The servers' URLs as resolved above, and each service's own database.
            REDIS_URL: infra.redisUrl,
            // Each service as its own NATS user, with its own subjects only; the gateway and the
            // emulators use no NATS and get no credentials.
            ...(isBusUser(d.name) ? { NATS_URL: infra.natsUrlFor(d.name) } : {}),
            DATABASE_URL: databases[d.name],
            ...options.envFor?.[d.name],
            PORT: String(ports.get(name)),
            ...(d.name === 'gateway'
              ? {
                  GATEWAY_PORT: String(ports.get(name)),
                  GATEWAY_INTERNAL_PORT: String(ports.get(`${name}:internal`)),
                }
              : {}),
            ...(d.callsPort ? { INTERNAL_PORT: String(ports.get(`${name}:calls`)) } : {}),
            INSTANCE_NAME: name,
          };
          starting.push(spawnProcess(name, d, env));
        }
      }
      const results = await Promise.allSettled(starting);
      for (const r of results) if (r.status === 'fulfilled') processes.push(r.value);
      const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
      if (failed) throw failed.reason;
    }
  } catch (error) {
    await stopAll();
    throw error;
  }

  const find = (name: string) => {
    const found = processes.find((p) => p.name === name);
    if (!found) throw new Error(`no process named ${name}`);
    return found;
  };

  return {
    infra,
    gatewayUrl: ports.has('gateway') ? url('gateway') : '',
    urls: Object.fromEntries(present.map((d) => [d.name, url(d.name)])),
    internalUrls: Object.fromEntries(present.map((d) => [d.name, internalUrl(d.name)])),
    databaseUrls: databases,
    processes,
    keys,
    serviceKeys,
    admin,
    ...(mail ? { mail } : {}),
    balancers,
    async stopProcess(name, signal = 'SIGTERM') {
      // The mail catcher is a part too: a mail server that goes down and comes back.
      if (name === 'maildev' && mail) return killProcess(mail.child, signal);
      await killProcess(find(name).child, signal);
    },
    async restartProcess(name) {
      if (name === 'maildev' && mail) {
        const fresh = await launchMail({ smtp: mail.smtpPort, ui: mail.uiPort });
        Object.assign(mail, fresh);
        return;
      }
      const old = find(name);
      const fresh = await spawnProcess(name, old.deployable, old.env);
      processes[processes.indexOf(old)] = fresh;
    },
    stop: stopAll,
  };
}
