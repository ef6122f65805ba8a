// The built web app (web/dist) the gateway serves. A build empties web/dist before it writes it again, so
// a gateway serving it meanwhile answers "not built": the app is built again only when a source it is
// made from is newer than its index.html (npm start after a test run, or a second suite, leaves a
// current build alone).
import { spawnSync, type StdioOptions } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { InfraError } from './native.js';

const SOURCES = [
  'web/src',
  'web/index.html',
  'web/public',
  'web/scripts',
  'web/vite.config.ts',
  'web/package.json',
  'packages/contracts/src',
];

function newestChange(path: string): number {
  if (!existsSync(path)) return 0;
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return readdirSync(path).reduce(
    (max, name) => (name === 'node_modules' ? max : Math.max(max, newestChange(join(path, name)))),
    stat.mtimeMs,
  );
}

/** Whether web/dist was built after every change to the sources it is made from. */
export function webBuildIsCurrent(root: string): boolean {
  const built = newestChange(join(root, 'web', 'dist', 'index.html'));
  return built > Math.max(...SOURCES.map((p) => newestChange(join(root, p))));
}

/**
 * Builds web/dist (for production: vitest's NODE_ENV=test would give React's development build) unless
 * it is current or `force` says to; throws when the build fails.
 */
export function ensureWebBuilt(
  root: string,
  { force = false, stdio = 'inherit' }: { force?: boolean; stdio?: StdioOptions } = {},
): void {
  if (!force && webBuildIsCurrent(root)) return;
  const build = spawnSync('pnpm', ['--filter', '@omc/web', 'run', 'build'], {
    cwd: root,
    stdio,
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (build.status !== 0) throw new InfraError('the web app did not build');
}
