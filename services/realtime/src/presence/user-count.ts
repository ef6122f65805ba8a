// Connected users across every realtime instance. Each instance writes its own socket count to Redis
// under a key that expires within seconds unless refreshed, so a dead instance's sockets vanish from the
// total by themselves; a Redis restart loses nothing that the next heartbeat does not write again.
import type { Redis } from '@omc/service-kit';
import type { Logger } from 'pino';

const INSTANCES_KEY = 'omc:realtime:instances';
const countKey = (instance: string) => `omc:realtime:sockets:${instance}`;
/** Other instances are told to recount at once when this one's count changes. */
export const COUNT_CHANGED_CHANNEL = 'omc:realtime:count-changed';

export interface UserCountOptions {
  redis: Redis;
  /** A subscribing connection of its own (it can run no commands). */
  subscriber: Redis;
  instance: string;
  log: Logger;
  /** This instance's sockets right now. */
  localCount: () => number;
  /** Called with the total across instances whenever it changes. */
  onTotal: (total: number) => void;
  heartbeatMs?: number;
  ttlMs?: number;
}

export interface UserCount {
  /** Sockets on every instance: the others' at the last recount, plus this one's now. */
  readonly total: number;
  /** Call when a local socket connected or left; writes are coalesced to one per `flush()`. */
  markChanged(): void;
  /** Writes this instance's count if it changed, and recounts if told to. Called every broadcast tick. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

export function startUserCount(options: UserCountOptions): UserCount {
  const { redis, subscriber, instance, log } = options;
  const heartbeatMs = options.heartbeatMs ?? 1000;
  const ttlMs = options.ttlMs ?? 3 * heartbeatMs;
  /** Sockets on the other instances at the last recount. */
  let others = 0;
  let lastTotal = -1;
  /** This instance's count changed since it was last written: written and announced to the others. */
  let localChanged = true;
  /** The heartbeat is due: this instance's key is written again (its TTL), without an announcement. */
  let refreshWanted = true;
  let recountWanted = true;
  let stopped = false;
  let busy = false;

  const publishTotal = () => {
    const total = others + options.localCount();
    if (total === lastTotal) return;
    lastTotal = total;
    options.onTotal(total);
  };

  const write = async () => {
    await redis
      .multi()
      .sadd(INSTANCES_KEY, instance)
      .set(countKey(instance), String(options.localCount()), 'PX', ttlMs)
      .exec();
  };

  const recount = async () => {
    const instances = await redis.smembers(INSTANCES_KEY);
    const counts = instances.length > 0 ? await redis.mget(instances.map(countKey)) : [];
    const gone = instances.filter((_, i) => counts[i] === null);
    if (gone.length > 0) await redis.srem(INSTANCES_KEY, ...gone);
    // This instance's own count is always current, whatever Redis holds.
    others = counts.reduce<number>(
      (sum, c, i) => (instances[i] === instance ? sum : sum + Number(c ?? 0)),
      0,
    );
  };

  const flush = async () => {
    if (stopped || busy) return;
    if (!localChanged && !refreshWanted && !recountWanted) return publishTotal();
    busy = true;
    try {
      if (localChanged || refreshWanted) {
        const changed = localChanged;
        localChanged = false;
        refreshWanted = false;
        await write();
        // Only a change is announced: a heartbeat that announced itself would have every instance
        // recount on every other's beat, work that grows with the square of the instances.
        if (changed) await redis.publish(COUNT_CHANGED_CHANNEL, instance);
      }
      recountWanted = false;
      await recount();
    } catch (error) {
      // Redis is away: keep counting locally and try again on the next beat.
      localChanged = true;
      recountWanted = true;
      log.debug({ err: error }, 'user count not shared (Redis unavailable)');
    } finally {
      busy = false;
      publishTotal();
    }
  };

  const heartbeat = setInterval(() => {
    refreshWanted = true;
    recountWanted = true;
    void flush();
  }, heartbeatMs);
  heartbeat.unref();

  const onMessage = (channel: string, from: string) => {
    if (channel === COUNT_CHANGED_CHANNEL && from !== instance) recountWanted = true;
  };
  subscriber.on('message', onMessage);
  subscriber
    .subscribe(COUNT_CHANGED_CHANNEL)
    .catch((error) => log.warn({ err: error }, 'cannot subscribe to user count changes'));

  return {
    get total() {
      return others + options.localCount();
    },
    markChanged() {
      localChanged = true;
    },
    flush,
    async stop() {
      stopped = true;
      clearInterval(heartbeat);
      subscriber.off('message', onMessage);
      // Leave at once, rather than when the key expires.
      await redis
        .multi()
        .del(countKey(instance))
        .srem(INSTANCES_KEY, instance)
        .publish(COUNT_CHANGED_CHANNEL, instance)
        .exec()
        .catch(() => undefined);
    },
  };
}
