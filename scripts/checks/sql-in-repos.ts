// `npm test`'s SQL check: a statement lives in a `*.repo.ts` file (or a migration), so the code that
// reads or writes a table is found in one place per store. It reads the syntax of every TypeScript file of
// the services, the gateway and the packages (tests, test kits and migrations aside; comments never count)
// and flags every query built with Kysely (selectFrom, selectNoFrom, insertInto, updateTable, deleteFrom,
// replaceInto, mergeInto, the schema builder's createTable and the like), every `sql` template (typed as
// `sql<T>` or not, under any name kysely's `sql` is imported as) and every `sql.raw`, `sql.lit`, `sql.ref`
// or other helper of it, every `CompiledQuery.raw`, `executeQuery` and pg `query` call, and every string
// that reads as a statement (`select … from`, `insert into`, `create table` …). Prints each and exits 1.
import ts from 'typescript';
import { runWhenMain, sourcesUnder, type CheckReport } from './workspace-files.js';

export const SCANNED = ['services', 'gateway', 'packages'];
/** Files that hold SQL for a reason other than a store's tables, each with that reason. */
export const EXEMPT: Record<string, string> = {
  'packages/infra/src/databases.ts':
    'server administration: creates, copies and drops whole databases, before any repository exists',
};

/** Kysely's query and schema builders: each call starts a statement. */
const BUILDERS = new Set([
  'selectFrom',
  'selectNoFrom',
  'insertInto',
  'updateTable',
  'deleteFrom',
  'replaceInto',
  'mergeInto',
  'createTable',
  'alterTable',
  'dropTable',
  'createIndex',
  'dropIndex',
  'createView',
  'dropView',
  'createType',
  'dropType',
  'createSchema',
  'dropSchema',
]);
/** Calls that run SQL text: Kysely's executor and pg's clients and pools. */
const RUNNERS = new Set(['executeQuery', 'query']);
/** A string or template that reads as a statement. */
const STATEMENT_TEXT =
  /^\s*(?:select\s[\s\S]*?\sfrom\s+[\w."]+(?:\s+(?:as\s+)?\w+)?(?:\s*$|\s*[;),]|\s+(?:where|join|left|right|inner|full|cross|natural|group|order|limit|offset|union|having|window|for)\b)|insert\s+into\s|update\s+\S+\s+set\s|delete\s+from\s|(?:create|drop|alter)\s+(?:table|index|view|database|schema|type|function|trigger)\s|with\s+\w+\s+as\s*\(|truncate\s)/i;

export const sqlMayLiveIn = (file: string): boolean =>
  file.endsWith('.repo.ts') ||
  /(^|\/)migrations\//.test(file) ||
  /\.test\.tsx?$/.test(file) ||
  /(^|\/)(test|tests)\//.test(file) ||
  file.startsWith('packages/testkit/') ||
  file in EXEMPT;

export interface Statement {
  file: string;
  line: number;
  form: string;
}

/** The names kysely's `sql` goes by in this file: `sql`, and what `import { sql as q }` calls it. */
function sqlNames(source: ts.SourceFile): Set<string> {
  const names = new Set(['sql']);
  for (const statement of source.statements) {
    if (!ts.isImportDeclaration(statement)) continue;
    const bindings = statement.importClause?.namedBindings;
    if (!bindings || !ts.isNamedImports(bindings)) continue;
    for (const element of bindings.elements)
      if ((element.propertyName ?? element.name).text === 'sql') names.add(element.name.text);
  }
  return names;
}

/** `sql`, `q` (an alias) or `kysely.sql`: a name kysely's `sql` goes by. */
const namesSql = (node: ts.Expression, names: Set<string>): boolean =>
  (ts.isIdentifier(node) && names.has(node.text)) ||
  (ts.isPropertyAccessExpression(node) && node.name.text === 'sql');

/** What makes a node a statement, or undefined. */
function formOf(node: ts.Node, names: Set<string>, source: ts.SourceFile): string | undefined {
  if (ts.isTaggedTemplateExpression(node) && namesSql(node.tag, names))
    return node.typeArguments ? 'a typed sql<T> template' : 'a sql template';
  if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateExpression(node)
    ) {
      const text = ts.isTemplateExpression(node) ? node.head.text : node.text;
      if (STATEMENT_TEXT.test(text)) return 'SQL text in a string';
    }
    return undefined;
  }
  const callee = node.expression;
  const method = callee.name.text;
  if (namesSql(callee.expression, names)) return `sql.${method}`;
  if (method === 'raw' && callee.expression.getText(source) === 'CompiledQuery') return 'CompiledQuery.raw';
  if (BUILDERS.has(method)) return `a Kysely ${method} query`;
  if (RUNNERS.has(method)) return `a ${method} call`;
  return undefined;
}

/** Every statement in one file's text, one per line; comments are not read. */
export function statementsIn(file: string, text: string): Statement[] {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const names = sqlNames(source);
  const found: Statement[] = [];
  const visit = (node: ts.Node) => {
    const form = formOf(node, names, source);
    const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
    // A template's own text, or a query call's argument, is part of the statement already found there.
    if (form && !found.some((s) => s.line === line)) found.push({ file, line, form });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The statements of the given files that are outside the places SQL may live. */
export function findViolations(files: { file: string; text: string }[]): Statement[] {
  return files
    .filter(({ file }) => !sqlMayLiveIn(file))
    .flatMap(({ file, text }) => statementsIn(file, text));
}

/** The check over the workspace's files. */
export function checkSqlInRepos(): CheckReport {
  const files = sourcesUnder(SCANNED, sqlMayLiveIn);
  const found = findViolations(files);
  return {
    lines: [
      ...found.map((s) => `${s.file}:${s.line}: ${s.form} outside a *.repo.ts file`),
      `${files.length} files, ${found.length} statement(s) outside *.repo.ts`,
    ],
    failed: found.length > 0,
  };
}

runWhenMain(import.meta.filename, checkSqlInRepos);
