// Runs the migrations and exits: the Kubernetes migration Job's command.
import { createDb, migrateToLatest } from '@omc/service-kit';
import { loadConfig } from './config.js';
import { migrations } from './db/migrations/index.js';

const config = loadConfig();
const db = createDb(config.DATABASE_URL, { max: 1 });
const applied = await migrateToLatest(db, migrations);
console.log(JSON.stringify({ service: 'payments', migrated: applied }));
await db.destroy();
