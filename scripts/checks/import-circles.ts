// `npm test`'s import-circle check: the module graph of every TypeScript file in the workspace (relative
// imports and workspace packages by their exports, type-only imports included, since a circle of types
// still ties two files together) must have no circle. Prints each circle found and exits 1.
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import {
  filesUnder,
  isSource,
  root,
  runWhenMain,
  workspacePackages,
  type CheckReport,
  type WorkspacePackage,
} from './workspace-files.js';

/** `@omc/contracts` or `@omc/testkit/vitest-config` -> the file its package exports there. */
function packageResolver(packages: WorkspacePackage[]): (specifier: string) => string | undefined {
  const entries = new Map<string, string>();
  for (const pkg of packages)
    for (const [subpath, target] of Object.entries(pkg.exports))
      entries.set(subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, join(pkg.dir, target));
  return (specifier) => entries.get(specifier);
}

/** A relative specifier as the bundler and tsc resolve it: `./a.js` is `./a.ts`, a folder its index. */
function resolveRelative(known: Set<string>, from: string, specifier: string): string | undefined {
  const base = normalize(join(dirname(from), specifier));
  const stem = base.replace(/\.(m?js|jsx)$/, '');
  const candidates = [
    base,
    `${stem}.ts`,
    `${stem}.tsx`,
    `${stem}.mts`,
    join(base, 'index.ts'),
    join(base, 'index.tsx'),
  ];
  return candidates.find((candidate) => isSource(candidate) && known.has(candidate));
}

export interface SourceFile {
  file: string;
  text: string;
}

/** Each file's imports among the given files: relative ones, and workspace packages by their exports. */
export function importGraph(files: SourceFile[], packages: WorkspacePackage[]): Map<string, string[]> {
  const fromPackage = packageResolver(packages);
  const known = new Set(files.map(({ file }) => file));
  const graph = new Map<string, string[]>();
  for (const { file, text } of files) {
    const { importedFiles } = ts.preProcessFile(text, true, true);
    const targets = importedFiles
      .map(({ fileName }) =>
        fileName.startsWith('.') ? resolveRelative(known, file, fileName) : fromPackage(fileName),
      )
      .filter((target): target is string => target !== undefined && target !== file);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected components of more than one file (Tarjan), each a circle or several. */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (file: string) => {
    index.set(file, next);
    low.set(file, next++);
    stack.push(file);
    onStack.add(file);
    for (const target of graph.get(file) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(file, Math.min(low.get(file)!, low.get(target)!));
      } else if (onStack.has(target)) low.set(file, Math.min(low.get(file)!, index.get(target)!));
    }
    if (low.get(file) === index.get(file)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== file);
      if (component.length > 1) found.push(component.sort());
    }
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return found;
}

/** The circles among the given files. */
export const findCircles = (files: SourceFile[], packages: WorkspacePackage[]): string[][] =>
  circles(importGraph(files, packages));

/** The check over the workspace's files. */
export function checkImportCircles(): CheckReport {
  const packages = workspacePackages();
  const files = [
    ...packages.flatMap((pkg) => filesUnder(pkg.dir, isSource)),
    ...filesUnder('scripts', isSource),
  ];
  const found = findCircles(
    files.map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') })),
    packages,
  );
  return {
    lines: [
      ...found.map((component) => `import circle among:\n  ${component.join('\n  ')}`),
      `${files.length} files, ${found.length} import circle(s)`,
    ],
    failed: found.length > 0,
  };
}

runWhenMain(import.meta.filename, checkImportCircles);
