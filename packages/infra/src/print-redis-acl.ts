// Prints the Redis users packages/contracts' REDIS_USERS defines as ACL SETUSER commands, for a managed
// Redis: `pnpm --filter @omc/infra redis-acl`, each <REDIS_..._PASSWORD> replaced by the service's password.
// The default user's line comes last: from then on it may only PING (run them as an admin user of yours).
import { REDIS_USER_NAMES, redisAclFile, redisPasswordVariable } from './redis-acl.js';

const placeholders = Object.fromEntries(REDIS_USER_NAMES.map((n) => [n, `<${redisPasswordVariable(n)}>`]));
const [defaultUser, ...services] = redisAclFile(placeholders as Parameters<typeof redisAclFile>[0])
  .trimEnd()
  .split('\n')
  .map((line) => line.replace(/^user /, 'ACL SETUSER '));
process.stdout.write([...services, defaultUser, ''].join('\n'));
