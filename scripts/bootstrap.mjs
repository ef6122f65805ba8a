#!/usr/bin/env node
// Entry point of `npm start`, `npm test`, `npm run test:chaos` and `npm run bench` on a machine that has only Node.js and npm:
// makes sure pnpm and the workspace's dependencies are installed, then hands over to the TypeScript
// script of the same name. Plain JavaScript with no dependencies, because nothing is installed yet.
import { spawnSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { clearInterval, setInterval } from 'node:timers';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const command = process.argv[2];
const scripts = {
  start: ['scripts/start.ts'],
  test: ['scripts/test.ts'],
  'test:chaos': ['scripts/test.ts', '--chaos'],
  bench: ['bench/src/run.ts'],
};
if (!scripts[command]) {
  console.error(`usage: node scripts/bootstrap.mjs ${Object.keys(scripts).join('|')}`);
  process.exit(2);
}

const pinnedPnpm = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).packageManager.split('@')[1];

function run(cmd, args, opts = {}) {
  return spawnSync(cmd, args, { cwd: root, stdio: 'inherit', ...opts });
}

function pnpmCommand() {
  const local = join(root, '.data', 'tools', 'node_modules', '.bin', 'pnpm');
  for (const candidate of ['pnpm', local]) {
    const probe = spawnSync(candidate, ['--version'], { encoding: 'utf8' });
    if (probe.status === 0 && probe.stdout.trim() === pinnedPnpm) return candidate;
  }
  console.log(`[bootstrap] installing pnpm ${pinnedPnpm}`);
  const global = run('npm', ['install', '--global', '--no-fund', '--no-audit', `pnpm@${pinnedPnpm}`]);
  if (global.status === 0 && spawnSync('pnpm', ['--version']).status === 0) return 'pnpm';
  // No permission for a global install: keep a private copy inside the project.
  mkdirSync(join(root, '.data', 'tools'), { recursive: true });
  const privateInstall = run('npm', [
    'install',
    '--prefix',
    join(root, '.data', 'tools'),
    '--no-fund',
    '--no-audit',
    `pnpm@${pinnedPnpm}`,
  ]);
  if (privateInstall.status !== 0) {
    console.error(
      '[bootstrap] could not install pnpm; install it yourself: npm install --global pnpm@' + pinnedPnpm,
    );
    process.exit(1);
  }
  return local;
}

const pnpm = pnpmCommand();
const lock = readFileSync(join(root, 'pnpm-lock.yaml'));
const stamp = createHash('sha256').update(lock).update(process.version).digest('hex');
const stampFile = join(root, 'node_modules', '.omc-install-stamp');
if (!existsSync(stampFile) || readFileSync(stampFile, 'utf8') !== stamp) {
  console.log('[bootstrap] installing dependencies');
  const install = run(pnpm, ['install', '--frozen-lockfile', '--reporter=append-only']);
  if (install.status !== 0) process.exit(install.status ?? 1);
  writeFileSync(stampFile, stamp);
}

// The script runs in Node directly (tsx as a loader, no pnpm or tsx process in between, so a signal has
// one hop to travel), in a process group of its own so this process decides who hears what:
// - Ctrl-C, SIGTERM or SIGHUP here is passed on: to `npm start`'s script alone (it stops what it started,
//   in order: services, then servers), to the whole group for the tests and benchmarks;
// - when the parent goes away (a process manager's `kill <npm's pid>` ends npm and its shell, not us),
//   that counts as SIGTERM.
const bin = dirname(
  pnpm === 'pnpm' ? spawnSync('sh', ['-c', 'command -v pnpm'], { encoding: 'utf8' }).stdout.trim() : pnpm,
);
const child = spawn(process.execPath, ['--import', 'tsx', ...scripts[command], ...process.argv.slice(3)], {
  cwd: root,
  stdio: 'inherit',
  detached: true,
  env: { ...process.env, PATH: [join(root, 'node_modules', '.bin'), bin, process.env.PATH].join(':') },
});
const pass = (signal) => {
  try {
    process.kill(command === 'start' ? child.pid : -child.pid, signal);
  } catch {
    // already gone
  }
};
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(signal, () => pass(signal));
const parent = process.ppid;
const orphanWatch = setInterval(() => {
  if (process.ppid !== parent) {
    clearInterval(orphanWatch);
    pass('SIGTERM');
  }
}, 250);
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
