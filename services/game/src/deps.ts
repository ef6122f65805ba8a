import {
  baseDeps,
  connectStores,
  internalClientFrom,
  serviceCredentials,
  type InternalClient,
  type BaseDeps,
  type ServiceCredentials,
  type Stores,
} from '@omc/service-kit';
import type { Config } from './config.js';
import type { Database } from './db/schema.js';

export interface Deps extends BaseDeps, Stores<Database> {
  config: Config;
  /** Signs the game's internal calls and checks its internal callers (service-credential.ts). */
  credentials: ServiceCredentials;
  /** The game's calls to payments' internal routes. */
  internal: InternalClient;
}

export async function createDeps(config: Config): Promise<Deps> {
  const base = baseDeps({ name: 'game', logLevel: config.LOG_LEVEL });
  const stores = await connectStores<Database>({
    name: 'game',
    config,
    log: base.log,
    // A click batch must run at most once: a command in flight when the connection drops is failed, never
    // sent again after the reconnect (it may have run already).
    // A stalled Redis (paused, swapping, a failover under way) fails commands after a bound instead of
    // holding requests open.
    redis: { autoResendUnfulfilledCommands: false, commandTimeout: config.REDIS_COMMAND_TIMEOUT_MS },
  });
  const credentials = serviceCredentials('game', config);
  return { ...base, config, ...stores, credentials, internal: internalClientFrom(credentials, config) };
}
