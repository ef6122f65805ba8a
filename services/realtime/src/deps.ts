import {
  connectNats,
  createMetrics,
  createRedis,
  type Metrics,
  type Nats,
  type Redis,
  traceLogFields,
} from '@omc/service-kit';
import pino, { type Logger } from 'pino';
import type { Config } from './config.js';

export interface Deps {
  config: Config;
  /** Commands (the connected-user count). */
  redis: Redis;
  /** The Socket.IO adapter's publisher and subscriber (a subscribing connection can run no commands). */
  adapterPub: Redis;
  adapterSub: Redis;
  /** Hears other instances' user count changes. */
  countSub: Redis;
  nats: Nats;
  metrics: Metrics;
  log: Logger;
  clock: () => number;
  close(): Promise<void>;
}

export async function createDeps(config: Config): Promise<Deps> {
  const log = pino({
    level: config.LOG_LEVEL,
    base: { service: 'realtime', instance: config.INSTANCE_NAME },
    mixin: traceLogFields,
  });
  const redis = createRedis(config.REDIS_URL);
  // The adapter's clients never fail a command for being offline: they queue until Redis returns.
  const adapterPub = createRedis(config.REDIS_URL, { maxRetriesPerRequest: null });
  // Subscribing connections skip ioredis's ready check: its INFO could race a SUBSCRIBE sent while the
  // connection was still opening, and a subscriber may run no other command, so the process crashed at
  // start-up now and then ("Connection in subscriber mode", ioredis 5.8.2+).
  const subscriber = { maxRetriesPerRequest: null, enableReadyCheck: false };
  const adapterSub = createRedis(config.REDIS_URL, subscriber);
  const countSub = createRedis(config.REDIS_URL, subscriber);
  const nats = await connectNats(config.NATS_URL, `realtime-${config.INSTANCE_NAME}`);
  return {
    config,
    redis,
    adapterPub,
    adapterSub,
    countSub,
    nats,
    metrics: createMetrics('realtime'),
    log,
    clock: () => Date.now(),
    async close() {
      await nats.close();
      redis.disconnect();
      adapterPub.disconnect();
      adapterSub.disconnect();
      countSub.disconnect();
    },
  };
}
