// The parts of the system: each deployable's package, its default ports and its database.
import { BUS_USERS, type BusUserName } from '@omc/contracts';

export type DeployableName = 'emulators' | 'auth' | 'game' | 'payments' | 'realtime' | 'gateway';

export const isBusUser = (name: DeployableName): name is BusUserName => name in BUS_USERS;

export interface Deployable {
  name: DeployableName;
  /** Package folder, relative to the workspace root. */
  dir: string;
  defaultPort: number;
  /** Where /healthz, /readyz and /metrics answer when not on `defaultPort` (the gateway's internal listener). */
  internalPort?: number;
  /** Where the routes only other services call answer (its INTERNAL_PORT): the game's, for auth alone. */
  callsPort?: number;
  /** Where /metrics alone answers in Kubernetes (its METRICS_PORT); elsewhere on `defaultPort`. */
  metricsPort?: number;
  /** Its own database, for the services that own tables. */
  database?: string;
}

export const DEPLOYABLES: readonly Deployable[] = [
  { name: 'emulators', dir: 'packages/emulators', defaultPort: 3100 },
  { name: 'auth', dir: 'services/auth', defaultPort: 3001, metricsPort: 9100, database: 'omc_auth' },
  {
    name: 'game',
    dir: 'services/game',
    defaultPort: 3002,
    callsPort: 3012,
    metricsPort: 9100,
    database: 'omc_game',
  },
  {
    name: 'payments',
    dir: 'services/payments',
    defaultPort: 3003,
    metricsPort: 9100,
    database: 'omc_payments',
  },
  { name: 'realtime', dir: 'services/realtime', defaultPort: 3004, metricsPort: 9100 },
  { name: 'gateway', dir: 'gateway', defaultPort: 8080, internalPort: 9080 },
];
