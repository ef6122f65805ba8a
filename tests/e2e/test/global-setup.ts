// Installs Debian's Chromium when missing, builds the web app and starts the whole system (infrastructure,
// emulators, services, gateway) on free ports for the browser tests; stops every process it started at the end.
import { ensureChromium, startSystem, type System } from '@omc/infra';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { TestProject } from 'vitest/node';
import { E2E_ENV } from './config';

const root = resolve(import.meta.dirname, '..', '..', '..');

function newestChange(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce(
    (max, name) => (name === 'node_modules' ? max : Math.max(max, newestChange(join(path, name)))),
    stat.mtimeMs,
  );
}

/** Builds web/dist unless it is newer than every source it is built from. */
function buildWeb(): void {
  const built = newestChange(join(root, 'web', 'dist', 'index.html'));
  const sources = Math.max(
    ...[
      'web/src',
      'web/index.html',
      'web/public',
      'web/vite.config.ts',
      'web/package.json',
      'packages/contracts/src',
    ].map((p) => newestChange(join(root, p))),
  );
  if (built > sources && process.env.E2E_FORCE_BUILD !== '1') return;
  // vitest sets NODE_ENV=test, which would give the bundle React's development build.
  const result = spawnSync('pnpm', ['--filter', '@omc/web', 'run', 'build'], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (result.status !== 0) throw new Error('the web app did not build');
}

declare module 'vitest' {
  export interface ProvidedContext {
    gatewayUrl: string;
    admin: { username: string; email: string; password: string };
    roundTarget: number;
    /** The development mail catcher's web inbox and API (maildev). */
    mailUrl: string;
  }
}

export default async function setup(project: TestProject) {
  ensureChromium();
  buildWeb();
  const dir = join(root, '.data', `e2e-${process.pid}`);
  let system: System | undefined;
  try {
    system = await startSystem({
      root,
      dir,
      env: E2E_ENV,
      log: () => undefined,
    });
  } catch (error) {
    console.error(`the system did not start; logs are in ${join(dir, 'logs')}`);
    throw error;
  }
  project.provide('gatewayUrl', system.gatewayUrl);
  project.provide('admin', system.admin);
  project.provide('roundTarget', Number(E2E_ENV.ROUND_TARGET));
  project.provide('mailUrl', system.mail?.uiUrl ?? '');
  return async () => {
    await system?.stop();
    rmSync(dir, { recursive: true, force: true });
  };
}
