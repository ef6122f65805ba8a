// The infrastructure package: servers (infra.ts), databases, native server control and the whole system.
export { ensureDatabase, recreateDatabase, dropDatabase, withDatabase } from './databases.js';
export {
  ensureChromium,
  ensureDebianCommands,
  ensureDockerCompose,
  ensurePromtool,
  ensureTmux,
  FETCH_BAD_PORTS,
  freePort,
  killByPid,
  processAlive,
  withDescendants,
  InfraError,
  startRedis,
  startNats,
  type RedisHandle,
  startPostgres,
  type ServerHandle,
} from './native.js';
export { startInfra, ensureInfraInstalled, type Infra, type InfraOptions, type ServerName } from './infra.js';
export { CONTAINER_IMAGES } from './containers.js';
export {
  startSystem,
  DEPLOYABLES,
  type System,
  type SystemOptions,
  type Deployable,
  type DeployableName,
  type RunningProcess,
} from './system.js';
export {
  startPrometheus,
  prometheusConfig,
  type PrometheusHandle,
  type PrometheusOptions,
  type PrometheusTarget,
} from './prometheus.js';
export { startBalancer, type Balancer } from './balancer.js';
export { serviceBundle } from './bundles.js';
export { startMailCatcher, type MailCatcher } from './mail-catcher.js';
export { ensureWebBuilt, webBuildIsCurrent } from './web-build.js';
export { caughtMails, linkIn, mailedLink, mailsTo, tokenOf, type CaughtMail } from './inbox.js';
export {
  setPayoutEmailFromCatcher,
  type PayoutEmailFromCatcherOptions,
  type PayoutEmailOutcome,
} from './payout-email.js';
export {
  verifyEmailFromCatcher,
  verifyEmailsFromCatcher,
  type VerifyFromCatcherOptions,
} from './verify-email.js';
export {
  BUS_USER_NAMES,
  natsAuthorization,
  natsPasswordVariable,
  natsUrlWithUser,
  randomNatsPasswords,
} from './nats-config.js';
export {
  randomRedisPasswords,
  redisAclFile,
  redisPasswordVariable,
  redisUrlWithUser,
  redisUserArgs,
  REDIS_ADMIN_PASSWORD_VARIABLE,
  REDIS_ADMIN_USER,
} from './redis-acl.js';
