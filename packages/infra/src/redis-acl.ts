// Redis' users, generated from packages/contracts' REDIS_USERS: one user per service with its own keys,
// channels and commands. Native servers load an ACL file with literal passwords; compose and Kubernetes
// pass the same users as redis-server arguments (`--user ...`) whose passwords come from the environment
// ($REDIS_<SERVICE>_PASSWORD, from Secrets), and tests/ops checks those arguments are the generated ones.
import { REDIS_USER_NAMES, redisAclRules, type RedisUserName } from '@omc/contracts';
import { randomBytes } from 'node:crypto';

export { REDIS_USER_NAMES };

/** The environment variable a deployed Redis (and its service) reads a service's password from. */
export const redisPasswordVariable = (name: RedisUserName) => `REDIS_${name.toUpperCase()}_PASSWORD`;

export function randomRedisPasswords(): Record<RedisUserName, string> {
  return Object.fromEntries(
    REDIS_USER_NAMES.map((name) => [name, randomBytes(18).toString('base64url')]),
  ) as Record<RedisUserName, string>;
}

/**
 * The default user (no password). `open`: every key and command, for the loopback server of tests and
 * development, where test harnesses act as "someone with Redis access"; otherwise PING alone (health
 * probes), never in compose or Kubernetes anything more.
 */
const defaultUser = (open: boolean) =>
  open ? ['reset', 'on', 'nopass', '~*', '&*', '+@all'] : ['reset', 'on', 'nopass', '+ping'];

/** Each user's rules, password included: [name, rules]. */
function users(password: (name: RedisUserName) => string, openDefault: boolean): [string, string[]][] {
  return [
    ['default', defaultUser(openDefault)],
    ...REDIS_USER_NAMES.map((name): [string, string[]] => [
      name,
      ['reset', 'on', `>${password(name)}`, ...redisAclRules(name)],
    ]),
  ];
}

/** An ACL file (redis-server --aclfile) with literal passwords. */
export function redisAclFile(
  passwords: Record<RedisUserName, string>,
  options: { openDefault?: boolean } = {},
): string {
  return (
    users((name) => passwords[name], options.openDefault ?? false)
      .map(([name, rules]) => ['user', name, ...rules].join(' '))
      .join('\n') + '\n'
  );
}

/** The operators' user (`admin`: backups, repairs, fault drills); no service holds its password. */
export const REDIS_ADMIN_USER = 'admin';
export const REDIS_ADMIN_PASSWORD_VARIABLE = 'REDIS_ADMIN_PASSWORD';

/**
 * The same users as redis-server arguments, the default user limited to PING, and the operators' admin
 * user last. `password` gives each one's password as the deployment writes it: `${REDIS_GAME_PASSWORD:-...}`
 * in compose, `$(REDIS_GAME_PASSWORD)` in Kubernetes; `adminPassword` the admin's.
 */
export function redisUserArgs(password: (name: RedisUserName) => string, adminPassword: string): string[] {
  return [
    ...users(password, false),
    [REDIS_ADMIN_USER, ['reset', 'on', `>${adminPassword}`, '~*', '&*', '+@all']] as [string, string[]],
  ].flatMap(([name, rules]) => ['--user', name, ...rules]);
}

/** A service's Redis URL with its credentials (redis://user:password@host:port/db). */
export function redisUrlWithUser(url: string, user: string, password: string): string {
  const parsed = new URL(url);
  parsed.username = encodeURIComponent(user);
  parsed.password = encodeURIComponent(password);
  return parsed.toString().replace(/\/$/, '');
}
