// `npm test`'s SQL check: a statement lives in a `*.repo.ts` file (or a migration), so the code that
// reads or writes a table is found in one place per store. It flags, in the services', the gateway's and
// service-kit's source (tests aside), every query built with Kysely (selectFrom, insertInto, updateTable,
// deleteFrom, replaceInto, mergeInto) or written as a `sql` template, and every pg `.query(` call. Prints
// each and exits 1.
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { filesUnder, root } from './workspace-files.js';

const SCANNED = ['services', 'gateway', 'packages/service-kit'];
const STATEMENT = /\.(selectFrom|insertInto|updateTable|deleteFrom|replaceInto|mergeInto)\(|\bsql`|\.query\(/;

const isSource = (name: string) => /\.(ts|tsx|mts)$/.test(name) && !name.endsWith('.d.ts');
export const sqlMayLiveIn = (file: string): boolean =>
  file.endsWith('.repo.ts') ||
  /(^|\/)migrations\//.test(file) ||
  /\.test\.tsx?$/.test(file) ||
  /(^|\/)(test|tests)\//.test(file);

export function statementsIn(text: string): number[] {
  return text.split('\n').flatMap((line, i) => (STATEMENT.test(line) ? [i + 1] : []));
}

if (process.argv[1] && relative(root, process.argv[1]).startsWith('scripts/checks/sql-in-repos')) {
  const files = SCANNED.flatMap((dir) => filesUnder(dir, isSource)).filter((file) => !sqlMayLiveIn(file));
  let found = 0;
  for (const file of files)
    for (const line of statementsIn(readFileSync(join(root, file), 'utf8'))) {
      console.log(`${file}:${line}: SQL outside a *.repo.ts file`);
      found++;
    }
  console.log(`${files.length} files, ${found} statement(s) outside *.repo.ts`);
  process.exit(found > 0 ? 1 : 0);
}
