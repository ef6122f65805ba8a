// `pnpm --filter @omc/payments run ledger:check` with DATABASE_URL: prints the report, exits 1 on a problem.
import { createDb } from '@omc/service-kit';
import { loadLedgerCheckConfig } from '../config.js';
import type { Database } from '../db/schema.js';
import { checkLedger } from './check.js';

const config = loadLedgerCheckConfig();
const db = createDb<Database>(config.DATABASE_URL, { max: 1, name: 'payments-ledger-check' });
try {
  const report = await checkLedger(db);
  console.log(JSON.stringify(report, null, 2));
  process.exitCode = report.ok ? 0 : 1;
} finally {
  await db.destroy();
}
