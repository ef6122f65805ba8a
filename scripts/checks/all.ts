// `npm test`'s code checks in one process: the import circles, the docs' references and size, the
// function length, SQL outside repositories and internal calls made by hand. Each is also a script of its own (CONTRIBUTING.md); one
// process loads TypeScript and the workspace's file list once instead of four times. Prints each check's
// findings under its name and exits 1 when any fails.
import { checkDocsReferences } from './docs-references.js';
import { checkFunctionLength } from './function-length.js';
import { checkImportCircles } from './import-circles.js';
import { checkInternalCalls } from './internal-calls.js';
import { checkSqlInRepos } from './sql-in-repos.js';
import type { CheckReport } from './workspace-files.js';

const CHECKS: [string, () => CheckReport][] = [
  ['import circles', checkImportCircles],
  ['docs references', checkDocsReferences],
  ['function length', checkFunctionLength],
  ['sql in repos', checkSqlInRepos],
  ['internal calls', checkInternalCalls],
];

let failed = 0;
for (const [name, check] of CHECKS) {
  const report = check();
  if (report.failed) failed += 1;
  console.log(`-- ${name}: ${report.failed ? 'FAILED' : 'ok'}`);
  for (const line of report.lines) console.log(`   ${line}`);
}
process.exit(failed > 0 ? 1 : 0);
