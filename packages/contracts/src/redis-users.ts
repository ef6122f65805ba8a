// Least privilege in Redis: one ACL user per service that keeps something there, allowed its own keys,
// its own pub/sub channels and the commands it runs (its Lua scripts' commands included, which Redis
// checks inside the script too). Nothing else: no FLUSHALL, FLUSHDB, CONFIG, KEYS, DEBUG, SHUTDOWN, ACL,
// MONITOR or another service's key. The ACL file every Redis loads (native, compose, Kubernetes) is
// generated from this table (packages/infra/src/redis-acl.ts); a service's credentials travel in its
// REDIS_URL (redis://user:password@host:port). Payments keeps nothing in Redis and has no user.

export type RedisUserName = 'auth' | 'game' | 'realtime' | 'gateway';

export interface RedisUser {
  /** Key patterns (Redis globs) it may read and write. */
  keys: string[];
  /** Pub/sub channels (globs); a PSUBSCRIBE pattern must be listed literally. */
  channels: string[];
  /** Commands it may run (lower case; `command|subcommand` for one subcommand). */
  commands: string[];
}

/** What every client's connection runs: ioredis' ready check (INFO), a database other than 0, PING. */
const CONNECTION = ['ping', 'info', 'select', 'hello', 'auth'];
/** Lua scripts (ioredis' defineCommand: EVALSHA, then EVAL when the script is not cached). */
const SCRIPTS = ['eval', 'evalsha'];

export const REDIS_USERS: Record<RedisUserName, RedisUser> = {
  // The login guard's and the request limits' counters (services/auth/src/security).
  auth: {
    keys: ['{auth:guard}:*', '{auth:limit}:*'],
    channels: [],
    commands: [...CONNECTION, ...SCRIPTS, 'multi', 'exec', 'get', 'set', 'incr', 'decr', 'del', 'pttl'],
  },
  // The round, the journal, the users in play, purchase marks and click budgets (services/game/src/engine/keys.ts).
  game: {
    keys: ['{omc:game}:*'],
    channels: [],
    commands: [
      ...CONNECTION,
      ...SCRIPTS,
      'time',
      'get',
      'set',
      'del',
      'hget',
      'hmget',
      'hset',
      'hdel',
      'hexists',
      'hincrby',
      'hscan',
    ],
  },
  // The user count, profile stamps, per-address socket leases and the Socket.IO adapter's channels.
  realtime: {
    keys: ['omc:realtime:*'],
    channels: [
      'omc:realtime:count-changed',
      // The classic adapter: PSUBSCRIBE to this pattern (listed literally), requests and responses.
      'omc:socket.io#/#*',
      'omc:socket.io-request#/#*',
      'omc:socket.io-response#/#*',
    ],
    commands: [
      ...CONNECTION,
      ...SCRIPTS,
      'multi',
      'exec',
      'get',
      'mget',
      'set',
      'del',
      'incr',
      'pexpire',
      'sadd',
      'srem',
      'smembers',
      'zadd',
      'zrem',
      'zcard',
      'zremrangebyscore',
      'publish',
      'subscribe',
      'unsubscribe',
      'psubscribe',
      'punsubscribe',
      'spublish',
      'ssubscribe',
      'sunsubscribe',
      'pubsub|numsub',
      'pubsub|shardnumsub',
    ],
  },
  // The per-address request budget (@fastify/rate-limit's Lua scripts).
  gateway: {
    keys: ['omc:gateway:*'],
    channels: [],
    commands: [...CONNECTION, ...SCRIPTS, 'get', 'incr', 'pexpire', 'pttl'],
  },
};

export const REDIS_USER_NAMES = Object.keys(REDIS_USERS) as RedisUserName[];

export const isRedisUser = (name: string): name is RedisUserName => name in REDIS_USERS;

/** A user's ACL rules after its name and password: its keys, channels and commands, nothing else. */
export function redisAclRules(name: RedisUserName): string[] {
  const user = REDIS_USERS[name];
  return [
    'resetkeys',
    ...user.keys.map((k) => `~${k}`),
    'resetchannels',
    ...user.channels.map((c) => `&${c}`),
    '-@all',
    ...user.commands.map((c) => `+${c}`),
  ];
}
