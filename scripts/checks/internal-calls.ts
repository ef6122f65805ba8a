// `npm test`'s internal-call check: a service calls another's internal routes only through the internal
// client (packages/service-kit/src/internal-client.ts), which is typed against contracts' INTERNAL and
// holds the credential, the deadline and the reading of the answer in one place. It reads the syntax of
// every TypeScript file of the services, the gateway and the packages (tests and test kits aside) and
// flags a service credential built by hand (`headersFor(…)`) and a `fetch` whose address names an
// internal route (`/internal/…`, an `INTERNAL_…_PATH` constant or an `internal…Path(…)` helper).
import ts from 'typescript';
import { runWhenMain, sourcesUnder, type CheckReport } from './workspace-files.js';

export const SCANNED = ['services', 'gateway', 'packages'];
/** Where internal calls are made and credentials built: the client, and the credential's own module. */
export const ALLOWED = new Set([
  'packages/service-kit/src/internal-client.ts',
  'packages/service-kit/src/service-credential.ts',
]);

const mayCallByHand = (file: string): boolean =>
  ALLOWED.has(file) ||
  /\.test\.tsx?$/.test(file) ||
  /(^|\/)(test|tests)\//.test(file) ||
  file.startsWith('packages/testkit/');

/** An address that names an internal route. */
const INTERNAL_ADDRESS = /\/internal\/|\bINTERNAL_\w*PATH\b|\binternal\w*Path\s*\(/;

export interface HandCall {
  file: string;
  line: number;
  form: string;
}

/** Every internal call made by hand in one file's text; comments are not read. */
export function handCallsIn(file: string, text: string): HandCall[] {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const found: HandCall[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee)
        ? callee.text
        : ts.isPropertyAccessExpression(callee)
          ? callee.name.text
          : '';
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      if (name === 'headersFor') found.push({ file, line, form: 'a service credential built by hand' });
      const address = node.arguments[0];
      if (name === 'fetch' && address && INTERNAL_ADDRESS.test(address.getText(source)))
        found.push({ file, line, form: 'an internal route fetched by hand' });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The hand-made internal calls of the given files, outside the places they may be made. */
export function findHandCalls(files: { file: string; text: string }[]): HandCall[] {
  return files
    .filter(({ file }) => !mayCallByHand(file))
    .flatMap(({ file, text }) => handCallsIn(file, text));
}

/** The check over the workspace's files. */
export function checkInternalCalls(): CheckReport {
  const files = sourcesUnder(SCANNED, mayCallByHand);
  const found = findHandCalls(files);
  return {
    lines: [
      ...found.map((c) => `${c.file}:${c.line}: ${c.form}; call through the internal client (service-kit)`),
      `${files.length} files, ${found.length} internal call(s) made by hand`,
    ],
    failed: found.length > 0,
  };
}

runWhenMain(import.meta.filename, checkInternalCalls);
