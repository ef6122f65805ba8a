// `npm run typecheck`: every package's TypeScript, checked as its own tsconfig.json says, in as few
// compiler runs as the configurations allow. Packages whose settings are the same (most extend the base
// alone) are checked together in one program, so the libraries' types they share (node, zod, fastify,
// vitest) are read once instead of once per package; a package with settings of its own runs alone.
// Imports resolve from each file's own folder either way, so a package still sees only its dependencies.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';

const root = process.cwd();

interface PackageConfig {
  dir: string;
  extends?: string;
  compilerOptions?: Record<string, unknown>;
  include: string[];
}

/** The folders pnpm-workspace.yaml names, with a package.json whose scripts include typecheck. */
function typedPackages(): string[] {
  const globs = readFileSync(join(root, 'pnpm-workspace.yaml'), 'utf8')
    .split('\n')
    .filter((l) => /^\s+- /.test(l) && !l.includes(':'))
    .map((l) => l.replace(/^\s+- /, '').trim());
  return globs
    .flatMap((g) =>
      g.endsWith('/*')
        ? existsSync(join(root, g.slice(0, -2)))
          ? readdirSync(join(root, g.slice(0, -2))).map((d) => join(g.slice(0, -2), d))
          : []
        : [g],
    )
    .filter((d) => {
      const manifest = join(root, d, 'package.json');
      return (
        existsSync(manifest) &&
        existsSync(join(root, d, 'tsconfig.json')) &&
        Boolean(JSON.parse(readFileSync(manifest, 'utf8')).scripts?.typecheck)
      );
    });
}

function readConfig(dir: string): PackageConfig {
  const raw = JSON.parse(readFileSync(join(root, dir, 'tsconfig.json'), 'utf8')) as Omit<
    PackageConfig,
    'dir'
  >;
  return { dir, ...raw, include: raw.include ?? ['**/*'] };
}

// The checker is TypeScript 7 (the native compiler, as `typescript-native`): the same checks as the
// packages' TypeScript 5 in a fraction of the time. TypeScript 5 stays the library the linter and the
// project's own checks read code with (typescript-eslint supports no later one).
const nativeTsc = join(
  dirname(createRequire(join(root, 'package.json')).resolve('typescript-native/package.json')),
  'bin',
  'tsc',
);

/** Runs the checker on a project; true when it found nothing. */
function tsc(project: string): boolean {
  const run = spawnSync(process.execPath, [nativeTsc, '-p', project, '--pretty', 'false'], {
    cwd: root,
    stdio: 'inherit',
  });
  return run.status === 0;
}

const groups = new Map<string, PackageConfig[]>();
for (const config of typedPackages().map(readConfig)) {
  // Only a config that extends another and sets nothing else of its own may join others of its kind.
  const key = config.extends
    ? JSON.stringify([resolve(root, config.dir, config.extends), config.compilerOptions ?? {}])
    : `alone:${config.dir}`;
  groups.set(key, [...(groups.get(key) ?? []), config]);
}

const generated = join(root, '.data', 'typecheck');
mkdirSync(generated, { recursive: true });
let ok = true;
let n = 0;
for (const members of groups.values()) {
  if (members.length === 1) {
    console.log(`typecheck ${members[0]!.dir}`);
    ok = tsc(join(root, members[0]!.dir)) && ok;
    continue;
  }
  const first = members[0]!;
  const file = join(generated, `tsconfig.${n++}.json`);
  writeFileSync(
    file,
    JSON.stringify(
      {
        extends: resolve(root, first.dir, first.extends!),
        ...(first.compilerOptions ? { compilerOptions: first.compilerOptions } : {}),
        include: members.flatMap((m) => m.include.map((pattern) => resolve(root, m.dir, pattern))),
      },
      null,
      2,
    ),
  );
  console.log(`typecheck ${members.map((m) => m.dir).join(', ')} (one program)`);
  ok = tsc(file) && ok;
}
if (!ok) process.exit(1);
