#!/usr/bin/env node
// Entry point of `npm start`, `npm test` and `npm run bench` on a machine that has only Node.js and npm:
// makes sure pnpm and the workspace's dependencies are installed, then hands over to the TypeScript
// script of the same name. Plain JavaScript with no dependencies, because nothing is installed yet.
import { spawnSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const command = process.argv[2];
const scripts = { start: 'scripts/start.ts', test: 'scripts/test.ts', bench: 'bench/src/run.ts' };
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
  const privateInstall = run('npm', ['install', '--prefix', join(root, '.data', 'tools'), '--no-fund', '--no-audit', `pnpm@${pinnedPnpm}`]);
  if (privateInstall.status !== 0) {
    console.error('[bootstrap] could not install pnpm; install it yourself: npm install --global pnpm@' + pinnedPnpm);
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

const child = spawn(pnpm, ['exec', 'tsx', scripts[command], ...process.argv.slice(3)], { cwd: root, stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
