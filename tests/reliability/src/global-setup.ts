// Starts the whole system once for the suite (infrastructure, emulators, services, gateway) as real
// processes, and a small loopback control server through which test files inject faults: test files run
// in worker processes that cannot hold the system's child processes, so they ask this process to stop
// and restart them. At the end it prints the suite's figures and stops everything by PID.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { mkdirSync, openSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BUS_USER_NAMES,
  freePort,
  serviceBundle,
  startSystem,
  type ServerName,
  type System,
} from '@omc/infra';
import { REDIS_USER_NAMES } from '@omc/contracts';
import { workspaceRoot } from '@omc/testkit';
import type { TestProject } from 'vitest/node';
import { emptyFigures, formatFigures, mergeFigures, type Figures } from './figures.js';
import { signalTree } from './stall.js';
import type { SuiteContext } from './context.js';

export const SUITE_ENV = {
  ROUND_TARGET: '50',
  MILESTONES: '10:100,25:200',
  SIGNUP_FREE_CLICKS: '10',
  RATE_LIMIT_PER_IP: '0',
  // The load clicks faster than a person; the per-user limit itself is tested by the game's own suite.
  CLICK_RATE_PER_USER: '1000',
  CLICK_RATE_PER_IP: '0',
  LOG_LEVEL: 'warn',
  // Every player of the suite signs up from this one host; the account limits stay at their defaults.
  REGISTER_MAX_PER_IP: '0',
  LOGIN_MAX_FAILURES_PER_IP: '0',
  // Shorter than the default 5 s grace for racing tabs, so the replay test waits less.
  REFRESH_REUSE_GRACE_MS: '1000',
  // A purchase whose provider call was cut off is held (409) for twice this plus 2 s; shorter for the suite.
  BRAINTREE_TIMEOUT_MS: '3000',
  PAYPAL_TIMEOUT_MS: '3000',
  // A mail the mail server could not take is tried again after 200 ms, doubling up to 2 s.
  MAIL_RETRY_BASE_MS: '200',
  MAIL_RETRY_MAX_MS: '2000',
  BOOTSTRAP_ADMIN_USERNAME: 'reliability_admin',
  BOOTSTRAP_ADMIN_EMAIL: 'reliability-admin@example.com',
  BOOTSTRAP_ADMIN_PASSWORD: 'reliability-admin-password',
};

const SERVERS: readonly ServerName[] = ['postgres', 'redis', 'nats'];

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  let body = '';
  for await (const chunk of request) body += chunk;
  return body ? (JSON.parse(body) as Record<string, unknown>) : {};
}

export default async function setup(project: TestProject) {
  const root = workspaceRoot();
  const dir = join(root, '.data', `reliability-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  const started = Date.now();
  const system: System = await startSystem({
    root,
    dir,
    redisAppendOnly: true,
    env: { ...SUITE_ENV, OMC_INFRA: 'native' },
    // Auth logs what it does with accounts at info, where a leaked token would be (the log check reads it).
    // Braintree's batch settles each sale a second after it is made, so a winner's collect is not held
    // for an unsettled purchase (docs/payments.md, "Clawbacks and payout holds") longer than that.
    envFor: { auth: { LOG_LEVEL: 'info' }, emulators: { SETTLE_AFTER_MS: '1000' } },
    log: () => undefined,
    // A loaded machine (a shared one, CI beside other suites) may take longer than a minute to start one.
    readyTimeoutMs: 180_000,
  });
  const startupMs = Date.now() - started;

  const figures: Figures = emptyFigures();
  figures.startupMs = startupMs;
  const extraGateways: ChildProcess[] = [];

  // Another gateway with its own settings (the per-IP limit on, or trusting X-Forwarded-For as it would
  // behind a load balancer), for the tests that need them; the main one runs with the suite's settings.
  const startExtraGateway = async (overrides: Record<string, string>): Promise<string> => {
    const gateway = system.processes.find((p) => p.name === 'gateway');
    if (!gateway) throw new Error('the system has no gateway');
    const port = await freePort();
    const internalPort = await freePort();
    // From its bundle, as the system's own processes start.
    const bundle = await serviceBundle(root, join(root, gateway.deployable.dir));
    const child = spawn(process.execPath, [bundle], {
      cwd: join(root, gateway.deployable.dir),
      env: {
        ...gateway.env,
        ...overrides,
        PORT: String(port),
        GATEWAY_PORT: String(port),
        GATEWAY_INTERNAL_PORT: String(internalPort),
        INSTANCE_NAME: `gateway-extra-${extraGateways.length + 1}`,
      },
      // Its log beside the others', so the log checks read it too.
      stdio: [
        'ignore',
        openSync(join(dir, 'logs', `gateway-extra-${extraGateways.length + 1}.log`), 'a'),
        openSync(join(dir, 'logs', `gateway-extra-${extraGateways.length + 1}.log`), 'a'),
      ],
    });
    extraGateways.push(child);
    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      if (child.exitCode !== null) throw new Error(`the extra gateway exited with ${child.exitCode}`);
      const ok = await fetch(`http://127.0.0.1:${internalPort}/readyz`, {
        signal: AbortSignal.timeout(1000),
      }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) return url;
      await new Promise((r) => setTimeout(r, 200));
    }
    throw new Error('the extra gateway did not become ready');
  };

  // A crash (SIGKILL, no chance to flush) or the server's own orderly stop.
  const stopServer = async (name: ServerName, crash: boolean): Promise<void> => {
    const pid = system.infra.pids[name];
    if (!crash || !pid) return system.infra.stopServer(name);
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 200; i++) {
      try {
        process.kill(pid, 0);
      } catch {
        return;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`${name} (pid ${pid}) did not die`);
  };

  const control: Server = createServer(async (request, response) => {
    try {
      const body = await readJson(request);
      const target = String(body.target ?? '');
      let result: unknown = { ok: true };
      switch (request.url) {
        case '/stop':
          figures.faultsInjected += 1;
          figures.faults.push(`${target}:${body.signal ?? 'stop'}${body.wipe ? ' (data wiped)' : ''}`);
          if (SERVERS.includes(target as ServerName)) {
            await stopServer(target as ServerName, body.signal === 'SIGKILL');
            // Redis restarted empty: its append-only file gone with the machine.
            if (target === 'redis' && body.wipe === true) {
              for (const file of ['appendonlydir', 'dump.rdb'])
                rmSync(join(dir, 'servers', 'redis', file), { recursive: true, force: true });
            }
          } else await system.stopProcess(target, (body.signal as NodeJS.Signals | undefined) ?? 'SIGKILL');
          break;
        case '/restart':
          if (SERVERS.includes(target as ServerName)) await system.infra.restartServer(target as ServerName);
          else await system.restartProcess(target);
          break;
        case '/pause':
        case '/resume': {
          // A stalled server (a long fork, a failover, a partition): every process of it stopped, then continued.
          const pid = system.infra.pids[target as ServerName];
          if (!pid) throw new Error(`no running server ${target}`);
          if (request.url === '/pause') figures.faults.push(`${target}:SIGSTOP`);
          signalTree(pid, request.url === '/pause' ? 'SIGSTOP' : 'SIGCONT');
          break;
        }
        case '/extra-gateway':
          result = { url: await startExtraGateway((body.env ?? {}) as Record<string, string>) };
          break;
        case '/figures':
          mergeFigures(figures, body as Partial<Figures>);
          break;
        default:
          response.writeHead(404).end();
          return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(result));
    } catch (error) {
      response
        .writeHead(500, { 'content-type': 'application/json' })
        .end(JSON.stringify({ message: (error as Error).message }));
    }
  });
  const controlPort = await freePort();
  await new Promise<void>((resolve) => control.listen(controlPort, '127.0.0.1', resolve));

  const databaseUrls: Record<string, string> = {};
  for (const p of system.processes)
    if (p.deployable.database && p.env.DATABASE_URL) databaseUrls[p.name] = p.env.DATABASE_URL;

  const processUrl = (name: string) => {
    const found = system.processes.find((p) => p.name === name);
    if (!found) throw new Error(`the system has no ${name}`);
    return found.url;
  };
  const gameCalls = system.processes.find((p) => p.name === 'game')?.env.INTERNAL_PORT;
  const deputy = await makeDeputyAdmin(system.gatewayUrl, system.admin);
  const context: SuiteContext = {
    gatewayUrl: system.gatewayUrl,
    urls: Object.fromEntries(system.processes.map((p) => [p.name, p.internalUrl])),
    deployables: system.processes.map((p) => p.name),
    databaseUrls,
    redisUrl: system.infra.redisUrl,
    redisUrls: Object.fromEntries(REDIS_USER_NAMES.map((name) => [name, system.infra.redisUrlFor(name)])),
    natsUrl: system.infra.natsUrl,
    natsUrls: Object.fromEntries(BUS_USER_NAMES.map((name) => [name, system.infra.natsUrlFor(name)])),
    keys: system.keys,
    serviceKeys: system.serviceKeys,
    callUrls: {
      auth: processUrl('auth'),
      game: processUrl('game'),
      payments: processUrl('payments'),
      'game:internal': `http://127.0.0.1:${gameCalls}`,
    },
    admin: system.admin,
    deputy,
    controlUrl: `http://127.0.0.1:${controlPort}`,
    mailUrl: system.mail?.uiUrl ?? '',
    logsDir: join(dir, 'logs'),
    env: SUITE_ENV,
  };
  project.provide('reliability', context);

  return async () => {
    figures.totalMs = Date.now() - started;
    const text = formatFigures(figures);
    console.log(text);
    try {
      const out = join(root, '.data', 'reliability-last-run');
      mkdirSync(out, { recursive: true });
      writeFileSync(join(out, 'figures.json'), JSON.stringify(figures, null, 2));
      writeFileSync(join(out, 'figures.txt'), text + '\n');
    } catch {
      // figures are printed above either way
    }
    await new Promise<void>((resolve) => control.close(() => resolve()));
    for (const child of extraGateways) {
      if (child.pid && child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        process.kill(child.pid, 'SIGTERM');
        await exited;
      }
    }
    await system.stop();
  };
}

/**
 * A second admin, granted by the bootstrap admin while it is the only one (so at once). From then on the
 * system holds the two-admin rule (docs/auth.md), and the deputy approves what the tests ask of the admin.
 */
async function makeDeputyAdmin(
  gatewayUrl: string,
  admin: SuiteContext['admin'],
): Promise<SuiteContext['deputy']> {
  const post = async (path: string, body: unknown, token?: string) => {
    const response = await fetch(`${gatewayUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: JSON.stringify(body),
    });
    const answer = (await response.json().catch(() => ({}))) as Record<string, any>;
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const deputy = {
    username: 'reliability_deputy',
    email: 'reliability-deputy@example.com',
    password: 'reliability-deputy-password',
  };
  await post('/api/user/register', deputy);
  const { token } = await post('/api/user/login', {
    emailOrUsername: admin.username,
    password: admin.password,
  });
  await post(
    '/api/admin/updateRole',
    { email: deputy.email, role: 'admin', currentPassword: admin.password },
    token,
  );
  return deputy;
}
