// `npm start`: the whole system on this machine, the gateway serving the built web app at
// http://localhost:8080. Ctrl-C (or SIGTERM, SIGHUP, or its parent going away) stops everything it
// started, servers included, within STOP_BOUND_MS (docs/operations.md, "Stopping npm start").
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import {
  DEPLOYABLES,
  ensureWebBuilt,
  startPrometheus,
  startSystem,
  webBuildIsCurrent,
  type PrometheusHandle,
  type System,
} from '@omc/infra';

const root = process.cwd();
/** Past this, whatever has not stopped is killed (SIGKILL) by its PID. */
const STOP_BOUND_MS = 20_000;

// A reader that went away (`npm start | tee start.log`, tee ended by the same Ctrl-C) makes every later
// write fail with EPIPE: the stop must go on and stop everything all the same, not die on its first line.
for (const stream of [process.stdout, process.stderr]) stream.on('error', () => undefined);

// Filled once start-up is over; the stop below may be asked for before.
const state: { system?: System; prometheus?: PrometheusHandle; stopping: boolean } = { stopping: false };
// `npm start -- --prometheus` (or PROMETHEUS=1): Debian's Prometheus beside the system, rules loaded.
const withPrometheus =
  process.argv.includes('--prometheus') || ['1', 'true', 'yes'].includes(process.env.PROMETHEUS ?? '');

// Registered before anything starts: a stop asked for during start-up happens as soon as it is over.
const stop = async (why: string) => {
  if (state.stopping) return;
  state.stopping = true;
  const running = state.system;
  if (!running) return console.log(`\n[start] ${why}: stopping once start-up is over`);
  console.log(`\n[start] ${why}: stopping`);
  const overdue = setTimeout(() => {
    console.error(`[start] not stopped within ${STOP_BOUND_MS / 1000} s: killing what is left`);
    const pids = [
      ...running.processes.map((p) => p.pid),
      ...(running.mail ? [running.mail.pid] : []),
      ...Object.values(running.infra.pids),
      ...(state.prometheus ? [state.prometheus.pid] : []),
    ];
    for (const pid of pids) {
      try {
        if (pid) process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    process.exit(1);
  }, STOP_BOUND_MS);
  await state.prometheus?.stop();
  await running.stop();
  clearTimeout(overdue);
  console.log('[start] stopped');
  process.exit(0);
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal));
// The process that started this one (scripts/bootstrap.mjs) gone, nobody would be left to stop us.
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent) void stop('parent gone');
}, 250).unref();

// Built again only when its sources changed: a build empties web/dist under anything serving it.
if (existsSync(join(root, 'web', 'package.json'))) {
  if (webBuildIsCurrent(root)) console.log('[start] the web app is built and current');
  else {
    console.log('[start] building the web app');
    try {
      ensureWebBuilt(root);
    } catch {
      process.exit(1);
    }
  }
}

// Where the data lives and which ports: .data/dev and the default ports, unless a test asks otherwise.
const dataDir = process.env.OMC_START_DIR ?? join(root, '.data', 'dev');
const ports = process.env.OMC_START_PORTS === 'free' ? 'free' : 'default';

// `npm start -- --watch game` (the option may repeat): that deployable runs under `tsx watch`, restarted
// when a file it imports changes, against the rest of the system as usual.
const watch = process.argv.flatMap((arg, i) => (arg === '--watch' ? [process.argv[i + 1] ?? ''] : []));
const unknown = watch.filter((name) => !DEPLOYABLES.some((d) => d.name === name));
if (unknown.length > 0) {
  console.error(
    `[start] --watch takes one of ${DEPLOYABLES.map((d) => d.name).join(', ')}; got ${unknown.join(', ')}`,
  );
  process.exit(2);
}

const system = await startSystem({
  root,
  dir: dataDir,
  persistent: true,
  ports,
  logs: 'inherit',
  redisAppendOnly: true,
  watch,
  // Braintree's settlement batch at the emulator: each sale settles this long after it was made, so a
  // winner who bought clicks can collect a moment later (docs/payments.md, "Clawbacks and payout holds").
  envFor: { emulators: { SETTLE_AFTER_MS: process.env.SETTLE_AFTER_MS ?? '10000' } },
});
state.system = system;
if (withPrometheus && !state.stopping) {
  try {
    state.prometheus = await startPrometheus({
      root,
      dir: join(dataDir, 'prometheus'),
      port: ports === 'free' ? 'free' : 9090,
      targets: system.processes
        .filter((p) => p.name !== 'emulators')
        .map((p) => ({ service: p.deployable.name, url: p.internalUrl })),
    });
  } catch (error) {
    console.error(
      `[start] Prometheus did not start: ${(error as Error).message}; the system runs without it`,
    );
  }
}
if (state.stopping) {
  state.stopping = false;
  await stop('asked during start-up');
}

console.log(`
One Million Clicks is running: ${system.gatewayUrl.replace('127.0.0.1', 'localhost') || '(no gateway yet)'}
  admin: ${system.admin.username} / ${system.admin.email} (password from BOOTSTRAP_ADMIN_PASSWORD, default "${process.env.BOOTSTRAP_ADMIN_PASSWORD ? '***' : system.admin.password}")
  payments go to the local emulators: no money moves.${
    state.prometheus
      ? `\n  Prometheus (alerting rules of k8s/monitoring loaded): ${state.prometheus.url.replace('127.0.0.1', 'localhost')}`
      : ''
  }
${
  system.mail
    ? `  mail is caught, never delivered: SMTP_PORT ${system.mail.smtpPort}, inbox and API on MAIL_UI_PORT ${system.mail.uiPort}: ${system.mail.uiUrl.replace('127.0.0.1', 'localhost')}`
    : `  mail goes to SMTP_URL (${process.env.SMTP_URL ? 'set' : 'unset'})`
}
Press Ctrl-C to stop everything.
`);

for (const p of system.processes) {
  p.child.on('exit', (code, signal) => {
    if (!state.stopping)
      console.error(`[start] ${p.name} exited (${code ?? signal}); the rest keeps running`);
  });
}
