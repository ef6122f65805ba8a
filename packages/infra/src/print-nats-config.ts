// Prints docker/nats/nats.conf's authorization block as packages/contracts' bus.ts defines it:
// `pnpm --filter @omc/infra nats-config`, pasted under the file's jetstream block.
import { natsAuthorization } from './nats-config.js';

process.stdout.write(natsAuthorization());
