import {
  connectNats,
  createDb,
  createMetrics,
  createRedis,
  type Metrics,
  type Nats,
  type Redis,
  traceLogFields,
} from '@omc/service-kit';
import type { Kysely } from 'kysely';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';
import type { Database } from './db/schema.js';

export interface Deps {
  config: Config;
  db: Kysely<Database>;
  redis: Redis;
  nats: Nats;
  metrics: Metrics;
  log: Logger;
  clock: () => number;
  close(): Promise<void>;
}

export async function createDeps(config: Config): Promise<Deps> {
  const log = pino({ level: config.LOG_LEVEL, base: { service: 'game' }, mixin: traceLogFields });
  const db = createDb<Database>(config.DATABASE_URL, { name: 'game', max: 20 });
  // A click batch must run at most once: a command in flight when the connection drops is failed, never
  // sent again after the reconnect (it may have run already).
  const redis = createRedis(config.REDIS_URL, { autoResendUnfulfilledCommands: false });
  const nats = await connectNats(config.NATS_URL, 'game');
  return {
    config,
    db,
    redis,
    nats,
    metrics: createMetrics('game'),
    log,
    clock: () => Date.now(),
    async close() {
      await nats.close();
      redis.disconnect();
      await db.destroy();
    },
  };
}
