// The migration CLI: `pnpm --filter @omc/payments migrate [status | up | down [steps]]`. With no argument it
// runs what is pending and exits: the Kubernetes migration Job's command.
import { migrationCli } from '@omc/service-kit';
import { migrations } from './db/migrations/index.js';

await migrationCli({ service: 'payments', migrations });
