// `npm test`'s import-circle check: the module graph of every TypeScript file in the workspace (relative
// imports and workspace packages by their exports, type-only imports included, since a circle of types
// still ties two files together) must have no circle. Prints each circle found and exits 1.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import ts from 'typescript';
import { filesUnder, root, workspacePackages } from './workspace-files.js';

const isSource = (name: string) => /\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts');

/** `@omc/contracts` or `@omc/testkit/vitest-config` -> the file its package exports there. */
function packageResolver(): (specifier: string) => string | undefined {
  const entries = new Map<string, string>();
  for (const pkg of workspacePackages())
    for (const [subpath, target] of Object.entries(pkg.exports))
      entries.set(subpath === '.' ? pkg.name : `${pkg.name}/${subpath.slice(2)}`, join(pkg.dir, target));
  return (specifier) => entries.get(specifier);
}

/** A relative specifier as the bundler and tsc resolve it: `./a.js` is `./a.ts`, a folder its index. */
function resolveRelative(from: string, specifier: string): string | undefined {
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
  return candidates.find((candidate) => isSource(candidate) && existsSync(join(root, candidate)));
}

export function importGraph(files: string[]): Map<string, string[]> {
  const fromPackage = packageResolver();
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
    const targets = importedFiles
      .map(({ fileName }) =>
        fileName.startsWith('.') ? resolveRelative(file, fileName) : fromPackage(fileName),
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

if (process.argv[1] && relative(root, process.argv[1]).startsWith('scripts/checks/import-circles')) {
  const files = workspacePackages().flatMap((pkg) => filesUnder(pkg.dir, isSource));
  files.push(...filesUnder('scripts', isSource));
  const found = circles(importGraph(files));
  for (const component of found) console.log(`import circle among:\n  ${component.join('\n  ')}`);
  console.log(`${files.length} files, ${found.length} import circle(s)`);
  process.exit(found.length > 0 ? 1 : 0);
}
