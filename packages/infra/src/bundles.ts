// A deployable as one bundle of its own code: esbuild joins the TypeScript of the service and of the
// workspace packages it imports (types stripped, nothing else changed) into `<package>/dist/<hash>/`,
// and every third-party import stays an import of the installed package, by its resolved path. Started
// with plain Node it is ready in a third of the CPU that transpiling on load (tsx) takes; the tests,
// the bench and `npm start` start processes many times, so that is most of a system's start-up.
// src/main.ts's dynamic imports stay chunks of their own, loaded in the same order (tracing hooks
// module loading before the service's modules are imported). The hash covers every input file, so a
// changed source gives a new bundle and an unchanged one is built once per process that needs it.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
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

/** The bundle's entry for the package at `dir` (absolute), built on first use in this process. */
export function serviceBundle(dir: string): Promise<string> {
  let entry = built.get(dir);
  if (!entry) {
    entry = buildBundle(dir);
    built.set(dir, entry);
    entry.catch(() => built.delete(dir));
  }
  return entry;
}

async function buildBundle(dir: string): Promise<string> {
  const dist = join(dir, 'dist');
  const scratch = join(dist, `.build-${process.pid}-${Date.now()}`);
  const result = await build({
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
    metafile: true,
    logLevel: 'error',
    plugins: [thirdPartyExternal(dir)],
  });
  // The inputs, and how they were bundled (this file, esbuild's version).
  const hash = createHash('sha256')
    .update(readFileSync(fileURLToPath(import.meta.url)))
    .update(version);
  for (const input of Object.keys(result.metafile.inputs).sort()) {
    hash.update(input);
    if (!input.includes(':')) hash.update(readFileSync(resolve(dir, input)));
  }
  const target = join(dist, hash.digest('hex').slice(0, 16));
  try {
    renameSync(scratch, target);
  } catch {
    // Another process built the same sources first: theirs is the same bundle.
    rmSync(scratch, { recursive: true, force: true });
  }
  pruneOld(dist, target);
  return join(target, 'main.js');
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
