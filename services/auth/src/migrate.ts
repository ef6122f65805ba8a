// The migration CLI: `pnpm --filter @omc/auth migrate [status | up | down [steps]]`. With no argument it
// runs what is pending and exits: the Kubernetes migration Job's command.
import { createDb, runMigrationCommand } from '@omc/service-kit';
import { loadMigrateConfig } from './config.js';
import { migrations } from './db/migrations/index.js';

const config = loadMigrateConfig();
const db = createDb(config.DATABASE_URL, { max: 1 });
try {
  process.exitCode = await runMigrationCommand({
    service: 'auth',
    argv: process.argv.slice(2),
    db,
    migrations,
  });
} finally {
  await db.destroy();
}
