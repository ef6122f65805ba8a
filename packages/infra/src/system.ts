// The whole system as processes on this machine: infrastructure, provider emulators, every service and
// the gateway, each started as its package's `start` script would, wired by environment variables.
// `npm start`, the end-to-end and reliability suites and the benchmarks all start it through here.
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { planAddresses, startBalancers } from './addresses.js';
import type { Balancer } from './balancer.js';
import { ensureDatabase } from './databases.js';
import { DEPLOYABLES, type Deployable, type DeployableName } from './deployables.js';
import { startInfra, type Infra } from './infra.js';
import { loadOrCreateKeys, loadOrCreateServiceKeys, type JwtKeys, type ServiceKeys } from './jwt-keys.js';
import type { MailCatcher } from './mail-catcher.js';
import { killProcess, launchProcess, type RunningProcess } from './processes.js';
import { launchSystemMail, startSystemMail } from './system-mail.js';
import { processEnv, systemWiring, type Admin } from './wiring.js';

export { DEPLOYABLES, type Deployable, type DeployableName } from './deployables.js';
export type { RunningProcess } from './processes.js';

/** Order: emulators, then services (in parallel), then realtime, then the gateway. */
const STAGES: DeployableName[][] = [['emulators'], ['auth', 'game', 'payments'], ['realtime'], ['gateway']];

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

export interface System {
  infra: Infra;
  gatewayUrl: string;
  urls: Partial<Record<DeployableName, string>>;
  /** Where each part's /healthz, /readyz and /metrics answer (for the gateway, not its public port). */
  internalUrls: Partial<Record<DeployableName, string>>;
  /** Each part's database (tests read the record, e.g. run payments' ledger check on it). */
  databaseUrls: Partial<Record<DeployableName, string>>;
  processes: RunningProcess[];
  keys: JwtKeys;
  /** Each service's own key for its internal calls (SERVICE_PRIVATE_KEY; the others hold its public key). */
  serviceKeys: ServiceKeys;
  admin: Admin;
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
  const keys = loadOrCreateKeys(options.dir, options.persistent);
  const serviceKeys = loadOrCreateServiceKeys(options.dir, options.persistent);
  const admin: Admin = {
    username: baseEnv.BOOTSTRAP_ADMIN_USERNAME ?? 'admin',
    email: baseEnv.BOOTSTRAP_ADMIN_EMAIL ?? 'admin@example.com',
    password: baseEnv.BOOTSTRAP_ADMIN_PASSWORD ?? 'change-me-admin',
  };

  const addresses = await planAddresses(present, options);
  const { ports, instanceNames, instanceUrl, internalUrl } = addresses;
  const balancers = await startBalancers(present, addresses);
  const stopBalancers = async () => {
    for (const b of Object.values(balancers)) await b.stop();
  };
  const url = (name: string) => balancers[name as DeployableName]?.url ?? instanceUrl(name);

  const databases: Partial<Record<DeployableName, string>> = {};
  for (const d of present)
    if (d.database) databases[d.name] = await ensureDatabase(infra.databaseUrl, d.database);

  const wiring = systemWiring({ root: options.root, infra, keys, admin, addresses, url });
  const mailOptions = { dir: options.dir, env: baseEnv, logs: options.logs };
  const mail = await startSystemMail(mailOptions, {
    wanted: options.mailCatcher,
    ports: options.ports,
  }).catch(async (error) => {
    await stopBalancers();
    await infra.stop();
    throw error;
  });
  if (mail) wiring.SMTP_URL = mail.smtpUrl;
  // Links in account mail point at the web app as this system serves it.
  if (ports.has('gateway')) wiring.PUBLIC_WEB_URL = url('gateway');

  const processes: RunningProcess[] = [];
  const launch = (name: string, deployable: Deployable, env: NodeJS.ProcessEnv) =>
    launchProcess(
      options,
      { name, deployable, port: ports.get(name)!, url: instanceUrl(name), internalUrl: internalUrl(name) },
      env,
    );
  const stopAll = async () => {
    for (const p of [...processes].reverse()) await killProcess(p.child);
    if (mail) await killProcess(mail.child);
    await stopBalancers();
    await infra.stop();
  };

  const common = { wiring, baseEnv, envFor: options.envFor, infra, keys, serviceKeys, ports };
  const start = (name: string, d: Deployable) =>
    launch(name, d, processEnv({ ...common, deployable: d, name, databaseUrl: databases[d.name] }));
  try {
    await startInStages(present, instanceNames, start, processes);
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
        const fresh = await launchSystemMail(mailOptions, { smtp: mail.smtpPort, ui: mail.uiPort });
        Object.assign(mail, fresh);
        return;
      }
      const old = find(name);
      const fresh = await launch(name, old.deployable, old.env);
      processes[processes.indexOf(old)] = fresh;
    },
    stop: stopAll,
  };
}

/** Starts the parts stage by stage (STAGES), each stage's processes side by side, into `processes`. */
async function startInStages(
  present: readonly Deployable[],
  instanceNames: (d: Deployable) => string[],
  start: (name: string, d: Deployable) => Promise<RunningProcess>,
  processes: RunningProcess[],
): Promise<void> {
  for (const stage of STAGES) {
    const starting = present
      .filter((d) => stage.includes(d.name))
      .flatMap((d) => instanceNames(d).map((name) => start(name, d)));
    const results = await Promise.allSettled(starting);
    for (const r of results) if (r.status === 'fulfilled') processes.push(r.value);
    const failed = results.find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
    if (failed) throw failed.reason;
  }
}
