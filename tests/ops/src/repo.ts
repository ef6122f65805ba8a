// The workspace as the suite sees it: its root, its deployables (packages/infra's DEPLOYABLES, the same
// list `npm start` starts) and their packages' scripts.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEPLOYABLES, type Deployable } from '@omc/infra';

export const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const K8S = join(ROOT, 'k8s');
export const OVERLAYS = ['dev', 'prod'] as const;
export type Overlay = (typeof OVERLAYS)[number];

export { DEPLOYABLES, type Deployable };

/** The convention every deployable follows; a package's own scripts win where they exist. */
export const CONVENTION = {
  start: 'node --import tsx src/main.ts',
  migrate: 'node --import tsx src/migrate.ts',
};

export interface PackageInfo {
  exists: boolean;
  name?: string;
  scripts: Record<string, string>;
}

export function packageOf(d: Deployable): PackageInfo {
  const file = join(ROOT, d.dir, 'package.json');
  if (!existsSync(file)) return { exists: false, scripts: {} };
  const json = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; scripts?: Record<string, string> };
  return { exists: true, name: json.name, scripts: json.scripts ?? {} };
}

/** The command a script runs, as an argument list (the scripts here are plain commands, no shell syntax). */
export function scriptArgs(d: Deployable, script: 'start' | 'migrate'): string[] {
  const info = packageOf(d);
  const command = info.scripts[script] ?? (info.exists ? undefined : CONVENTION[script]);
  if (!command) throw new Error(`${d.dir}/package.json has no "${script}" script`);
  if (/[|&;<>$`"'\\]/.test(command))
    throw new Error(
      `${d.dir} "${script}" script uses shell syntax; images run it without a shell: ${command}`,
    );
  return command.trim().split(/\s+/);
}

export function pinnedPnpm(): string {
  const root = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { packageManager: string };
  return root.packageManager.split('@')[1]!;
}

/** Deployables that run in an overlay: the emulators are for development only. */
export function deployablesIn(overlay: Overlay): Deployable[] {
  return DEPLOYABLES.filter((d) => overlay === 'dev' || d.name !== 'emulators');
}
