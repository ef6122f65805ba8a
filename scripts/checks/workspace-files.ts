// The workspace as the checks read it: its packages (name, folder, exports) and its TypeScript files.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join, relative } from 'node:path';

export const root = process.cwd();

/** What a check found: the lines it prints, and whether that fails `npm test`. */
export interface CheckReport {
  lines: string[];
  failed: boolean;
}

/** Runs a check as a script of its own (`tsx scripts/checks/<name>.ts`) when that file is the one run. */
export function runWhenMain(file: string, check: () => CheckReport): void {
  if (!process.argv[1] || relative(root, process.argv[1]) !== relative(root, file)) return;
  const report = check();
  for (const line of report.lines) console.log(line);
  process.exit(report.failed ? 1 : 0);
}

/** Folders no check reads: installed, built, generated or run-time data. */
const SKIPPED = new Set(['node_modules', 'dist', '.data', '.git']);

export interface WorkspacePackage {
  name: string;
  dir: string;
  exports: Record<string, string>;
  scripts: Record<string, string>;
}

export function workspacePackages(): WorkspacePackage[] {
  const globs = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8')
    .split('\n')
    .filter((line) => /^\s+- /.test(line) && !line.includes(':'))
    .map((line) => line.replace(/^\s+- /, '').trim());
  const dirs = globs.flatMap((glob) => {
    if (!glob.endsWith('/*')) return [glob];
    const parent = glob.slice(0, -2);
    return existsSync(join(root, parent)) ? readdirSync(join(root, parent)).map((d) => join(parent, d)) : [];
  });
  return dirs
    .filter((dir) => existsSync(join(root, dir, 'package.json')))
    .map((dir) => {
      const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8')) as {
        name: string;
        exports?: Record<string, string>;
        scripts?: Record<string, string>;
      };
      return { name: manifest.name, dir, exports: manifest.exports ?? {}, scripts: manifest.scripts ?? {} };
    });
}

/**
 * Every file under `dir` (relative to the root) whose name passes `keep`: the files git tracks and the new
 * ones it does not ignore, so what a build or a test run writes meanwhile (ignored) is never read. Outside
 * a git checkout, a walk that skips the SKIPPED folders.
 */
export function filesUnder(dir: string, keep: (name: string) => boolean): string[] {
  if (!existsSync(join(root, dir))) return [];
  const listed = gitFiles(dir);
  if (listed) return listed.filter((file) => keep(basename(file)) && existsSync(join(root, file)));
  const found: string[] = [];
  const walk = (at: string) => {
    for (const entry of readdirSync(at)) {
      if (SKIPPED.has(entry)) continue;
      const path = join(at, entry);
      const stat = lstatSync(path, { throwIfNoEntry: false });
      if (stat?.isDirectory()) walk(path);
      else if (stat?.isFile() && keep(entry)) found.push(relative(root, path));
    }
  };
  walk(join(root, dir));
  return found;
}

function gitFiles(dir: string): string[] | undefined {
  try {
    const out = execFileSync(
      'git',
      ['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', dir],
      {
        cwd: root,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'ignore'],
        maxBuffer: 64 * 1024 * 1024,
      },
    );
    return [...new Set(out.split('\0').filter(Boolean))];
  } catch {
    return undefined;
  }
}

/** A TypeScript source file's name (declarations aside). */
export const isSource = (name: string): boolean => /\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts');

/** The TypeScript sources under `dirs` with their text, less those `skip` names. */
export function sourcesUnder(
  dirs: readonly string[],
  skip: (file: string) => boolean,
): { file: string; text: string }[] {
  return dirs
    .flatMap((dir) => filesUnder(dir, isSource))
    .filter((file) => !skip(file))
    .map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') }));
}
