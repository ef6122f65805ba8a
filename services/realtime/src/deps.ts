import {
  baseDeps,
  closeInOrder,
  connectNats,
  createRedis,
  type BaseDeps,
  type Nats,
  type Redis,
} from '@omc/service-kit';
import type { Config } from './config.js';

export interface Deps extends BaseDeps {
  config: Config;
  /** Commands (the connected-user count). */
  redis: Redis;
  /** The Socket.IO adapter's publisher and subscriber (a subscribing connection can run no commands). */
  adapterPub: Redis;
  adapterSub: Redis;
  /** Hears other instances' user count changes. */
  countSub: Redis;
  nats: Nats;
}

export async function createDeps(config: Config): Promise<Deps> {
  const base = baseDeps({
    name: 'realtime',
    logLevel: config.LOG_LEVEL,
    logBase: { instance: config.INSTANCE_NAME },
  });
  // Each of the four clients logs its connection errors once per outage.
  const redis = createRedis(config.REDIS_URL, {}, base.log);
  // The adapter's clients never fail a command for being offline or stalled: they queue until Redis
  // returns (no request waits on them).
  const queued = { maxRetriesPerRequest: null, commandTimeout: undefined };
  const adapterPub = createRedis(config.REDIS_URL, queued, base.log);
  // Subscribing connections skip ioredis's ready check: its INFO could race a SUBSCRIBE sent while the
  // connection was still opening, and a subscriber may run no other command, so the process crashed at
  // start-up now and then ("Connection in subscriber mode", ioredis 5.8.2+).
  const subscriber = { ...queued, enableReadyCheck: false };
  const adapterSub = createRedis(config.REDIS_URL, subscriber, base.log);
  const countSub = createRedis(config.REDIS_URL, subscriber, base.log);
  const nats = await connectNats(config.NATS_URL, `realtime-${config.INSTANCE_NAME}`);
  return {
    ...base,
    config,
    redis,
    adapterPub,
    adapterSub,
    countSub,
    nats,
    close: closeInOrder(
      () => nats.close(),
      () => redis.disconnect(),
      () => adapterPub.disconnect(),
      () => adapterSub.disconnect(),
      () => countSub.disconnect(),
    ),
  };
}
