// `npm test`'s function-length check: no function, method or arrow function in the workspace's source
// spans more than 120 lines, so each holds one job a reader can take in. Tests and the bench's report
// writer (a long, flat table of rows) are outside the rule. Prints each long function and exits 1.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import {
  filesUnder,
  root,
  runWhenMain,
  workspacePackages,
  type CheckReport,
  isSource,
} from './workspace-files.js';

export const MAX_FUNCTION_LINES = 120;

export const isTest = (file: string) =>
  /\.test\.tsx?$/.test(file) || /(^|\/)(test|tests|e2e)\//.test(file) || file.startsWith('tests/');
/** Files outside the rule: the bench's report writer. */
const EXEMPT = new Set(['bench/src/report.ts']);

export interface LongFunction {
  file: string;
  name: string;
  line: number;
  lines: number;
}

function nameOf(node: ts.Node, source: ts.SourceFile): string {
  if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && node.name)
    return node.name.getText(source);
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent)) return parent.name.getText(source);
  if (parent && ts.isPropertyAssignment(parent)) return parent.name.getText(source);
  if (parent && ts.isCallExpression(parent))
    return `(callback of ${parent.expression.getText(source).slice(0, 40)})`;
  return '(anonymous)';
}

export function longFunctions(file: string, text: string, max = MAX_FUNCTION_LINES): LongFunction[] {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) found.push({ file, name: nameOf(node, source), line: start + 1, lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The long functions of the given files, tests and the exempt files aside. */
export const findLongFunctions = (files: { file: string; text: string }[]): LongFunction[] =>
  files
    .filter(({ file }) => !isTest(file) && !EXEMPT.has(file))
    .flatMap(({ file, text }) => longFunctions(file, text));

/** The check over the workspace's files. */
export function checkFunctionLength(): CheckReport {
  const files = [
    ...workspacePackages().flatMap((pkg) => filesUnder(pkg.dir, isSource)),
    ...filesUnder('scripts', isSource),
  ].filter((file) => !isTest(file) && !EXEMPT.has(file));
  const found = findLongFunctions(
    files.map((file) => ({ file, text: readFileSync(join(root, file), 'utf8') })),
  );
  return {
    lines: [
      ...found.map((f) => `${f.file}:${f.line} ${f.name}: ${f.lines} lines (at most ${MAX_FUNCTION_LINES})`),
      `${files.length} files, ${found.length} function(s) over ${MAX_FUNCTION_LINES} lines`,
    ],
    failed: found.length > 0,
  };
}

runWhenMain(import.meta.filename, checkFunctionLength);
