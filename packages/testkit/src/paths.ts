import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The workspace root: the nearest folder above `from` holding pnpm-workspace.yaml. */
export function workspaceRoot(from: string = process.cwd()): string {
  let dir = from;
  while (!existsSync(join(dir, 'pnpm-workspace.yaml'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no pnpm-workspace.yaml above ${from}`);
    dir = parent;
  }
  return dir;
}
