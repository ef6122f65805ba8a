// A deployable as one bundle of its own code: esbuild joins the TypeScript of the service and of the
// workspace packages it imports (types stripped, nothing else changed) into `<package>/dist/<hash>/`;
// every third-party import stays an import of the installed package. Started with plain Node it is
// ready on a third of the CPU that transpiling on load (tsx) takes; the tests, the bench and
// `npm start` start processes many times, so that was most of a system's start-up. src/main.ts's
// dynamic imports stay chunks of their own, loaded in the same order (tracing hooks module loading
// before the service's modules are imported). The folder is named by a hash of every file the bundle
// can be made from, so a changed source gives a new bundle and an unchanged one is built once, by
// whichever process needs it first.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, version, type Plugin } from 'esbuild';

/** The module service-kit's tracing takes its loader hook's address from (resolved here at build time). */
const HOOK_MODULE = /\/tracing-hook\.js$/;

/**
 * Bare imports outside the workspace stay imports: by name where the bundle's package resolves the name
 * to the same file (so the tracing hooks, which match on names, see them as they do unbundled), else by
 * the path of the file Node would load from the importer (a workspace package's own dependency).
 */
function thirdPartyExternal(packageDir: string): Plugin {
  return {
    name: 'third-party-external',
    setup(b) {
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (args.path.startsWith('@omc/') || args.path.startsWith('node:') || args.pluginData === 'own')
          return undefined;
        const found = await b.resolve(args.path, {
          resolveDir: args.resolveDir,
          kind: args.kind,
          importer: args.importer,
          pluginData: 'own',
        });
        if (found.errors.length > 0) return undefined;
        // A built-in named without `node:` (esbuild marks those external itself).
        if (found.external) return { path: args.path, external: true };
        const fromPackage = await b.resolve(args.path, {
          resolveDir: packageDir,
          kind: args.kind,
          pluginData: 'own',
        });
        const byName = fromPackage.errors.length === 0 && fromPackage.path === found.path;
        return { path: byName ? args.path : found.path, external: true };
      });
      // import-in-the-middle's hook is registered by specifier, relative to the registering module:
      // in a bundle that module is the bundle, so its address is fixed here, where it resolves.
      b.onResolve({ filter: HOOK_MODULE }, (args) => ({
        path: resolve(args.resolveDir, args.path),
        namespace: 'tracing-hook',
        pluginData: args.resolveDir,
      }));
      b.onLoad({ filter: /.*/, namespace: 'tracing-hook' }, async (args) => {
        const hook = await b.resolve('import-in-the-middle/hook.mjs', {
          resolveDir: args.pluginData as string,
          kind: 'import-statement',
          pluginData: 'own',
        });
        if (hook.errors.length > 0) throw new Error(`import-in-the-middle/hook.mjs: ${hook.errors[0]!.text}`);
        const url = pathToFileURL(hook.path).href;
        return { contents: `export const hookUrl = () => ${JSON.stringify(url)};`, loader: 'js' };
      });
    },
  };
}

const built = new Map<string, Promise<string>>();

/** The bundle's entry for the deployable at `dir` (absolute) of the workspace at `root`. */
export function serviceBundle(root: string, dir: string): Promise<string> {
  let entry = built.get(dir);
  if (!entry) {
    entry = bundleOf(root, dir);
    built.set(dir, entry);
    entry.catch(() => built.delete(dir));
  }
  return entry;
}

/** Code files under `dir`, tests left out. */
function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(ts|tsx|js|mjs|json)$/.test(f) && !/\.test\.tsx?$/.test(f))
    .map((f) => join(dir, f));
}

/**
 * What a bundle is made from: the deployable's sources, the workspace packages' (a deployable imports
 * only those), the lockfile (which third-party files it imports) and how it is bundled (this file,
 * esbuild's version). Read before building, so a bundle already built is used as it is.
 */
function sourceKey(root: string, dir: string): string {
  const packages = join(root, 'packages');
  const files = [
    join(root, 'pnpm-lock.yaml'),
    ...sourcesUnder(join(dir, 'src')),
    ...readdirSync(packages).flatMap((p) => {
      const src = join(packages, p, 'src');
      return existsSync(src) ? sourcesUnder(src) : [];
    }),
  ].sort();
  const hash = createHash('sha256')
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(version);
  for (const file of files) hash.update(file).update(readFileSync(file));
  return hash.digest('hex').slice(0, 16);
}

async function bundleOf(root: string, dir: string): Promise<string> {
  const dist = join(dir, 'dist');
  const target = join(dist, sourceKey(root, dir));
  const entry = join(target, 'main.js');
  if (existsSync(entry)) {
    // In use: not pruned as old by the next build of changed sources.
    const now = new Date();
    utimesSync(target, now, now);
    return entry;
  }
  const scratch = join(dist, `.build-${process.pid}-${Date.now()}`);
  await build({
    entryPoints: { main: join(dir, 'src', 'main.ts') },
    absWorkingDir: dir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // As Node resolves: package "exports" under its own conditions, else "main" (not "module", which
    // points some packages at files Node cannot load).
    conditions: ['node'],
    mainFields: ['main'],
    outdir: scratch,
    entryNames: '[name]',
    chunkNames: 'chunks/[name]-[hash]',
    sourcemap: 'linked',
    logLevel: 'error',
    plugins: [thirdPartyExternal(dir)],
  });
  try {
    renameSync(scratch, target);
  } catch {
    // Another process built the same sources first: theirs is the same bundle.
    rmSync(scratch, { recursive: true, force: true });
  }
  pruneOld(dist, target);
  return entry;
}

/** Bundles of older sources: removed once an hour old (a process started from one has loaded it). */
function pruneOld(dist: string, keep: string): void {
  const hourAgo = Date.now() - 3_600_000;
  for (const name of readdirSync(dist)) {
    const path = join(dist, name);
    try {
      if (path !== keep && statSync(path).mtimeMs < hourAgo) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed by another process meanwhile.
    }
  }
}
