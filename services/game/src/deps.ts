import {
  baseDeps,
  closeInOrder,
  connectNats,
  createDb,
  createRedis,
  type BaseDeps,
  type Nats,
  type Redis,
} from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Config } from './config.js';
import type { Database } from './db/schema.js';

export interface Deps extends BaseDeps {
  config: Config;
  db: Kysely<Database>;
  redis: Redis;
  nats: Nats;
}

export async function createDeps(config: Config): Promise<Deps> {
  const db = createDb<Database>(config.DATABASE_URL, { name: 'game', max: 20 });
  // A click batch must run at most once: a command in flight when the connection drops is failed, never
  // sent again after the reconnect (it may have run already).
  const redis = createRedis(config.REDIS_URL, { autoResendUnfulfilledCommands: false });
  const nats = await connectNats(config.NATS_URL, 'game');
  return {
    ...baseDeps({ name: 'game', logLevel: config.LOG_LEVEL }),
    config,
    db,
    redis,
    nats,
    close: closeInOrder(
      () => nats.close(),
      () => redis.disconnect(),
      () => db.destroy(),
    ),
  };
}
