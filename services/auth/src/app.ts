import fastifyCookie from '@fastify/cookie';
import { STREAMS } from '@omc/contracts';
import {
  createServer,
  ensureStream,
  migrateToLatest,
  pingDb,
  pingNats,
  pingRedis,
  registerHealth,
  registerMetrics,
  registerTokens,
  startOutboxRelay,
} from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import { adminRoutes } from './admin/admin.routes.js';
import type { AuthContext } from './context.js';
import { migrations } from './db/migrations/index.js';
import { startMail } from './mail/index.js';
import { passwordResetRoutes } from './password-reset/password-reset.routes.js';
import { purgeOldResetTokens } from './password-reset/reset-tokens.repo.js';
import { activeSessionRoutes } from './sessions/active-sessions.routes.js';
import { verificationRoutes } from './verification/verification.routes.js';
import type { Deps } from './deps.js';
import { refuseControlCharacters } from './security/control-characters.js';
import { LoginGuard, RateLimited } from './security/login-guard.js';
import { purgeExpiredRefreshTokens } from './sessions/refresh-tokens.js';
import { sessionRoutes } from './sessions/session.routes.js';
import { ensureBootstrapAdmin } from './users/bootstrap-admin.js';
import { internalRoutes } from './users/internal.routes.js';
import { userRoutes } from './users/user.routes.js';

export async function buildApp(
  deps: Deps,
  options: { logger?: boolean; outboxIntervalMs?: number; mailIntervalMs?: number } = {},
): Promise<FastifyInstance> {
  const { config } = deps;
  const app = createServer({
    name: 'auth',
    // Believe X-Forwarded-For from the nearest TRUST_PROXY_HOPS peers (the gateway), no further.
    // service-kit's option type names only the other forms Fastify accepts.
    trustProxy: ((_address: string, hop: number) => hop < config.TRUST_PROXY_HOPS) as unknown as boolean,
    logLevel: config.LOG_LEVEL,
    ...(options.logger === false ? { logger: false } : {}),
  });
  await migrateToLatest(deps.db, migrations);
  await ensureStream(deps.nats.jsm, STREAMS.auth);
  await registerTokens(app, { publicKey: config.JWT_PUBLIC_KEY, privateKey: config.JWT_PRIVATE_KEY });
  await app.register(fastifyCookie);
  app.decorateRequest('account', null);

  const relay = startOutboxRelay(deps.db, deps.nats, deps.log, {
    ...(options.outboxIntervalMs ? { intervalMs: options.outboxIntervalMs } : {}),
    onPublished: (subject) => deps.counters.eventsPublished.inc({ subject }),
  });
  app.addHook('onClose', async () => relay.stop());
  const mail = startMail(deps, options.mailIntervalMs ? { intervalMs: options.mailIntervalMs } : {});
  app.addHook('onClose', async () => mail.stop());

  const ctx: AuthContext = {
    deps,
    relay,
    guard: new LoginGuard(deps.redis, {
      windowMs: config.LOGIN_WINDOW_MS,
      lockoutMs: config.LOGIN_LOCKOUT_MS,
      maxPerIp: config.LOGIN_MAX_FAILURES_PER_IP,
      maxPerAccountIp: config.LOGIN_MAX_FAILURES_PER_ACCOUNT_IP,
      maxPerAccount: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      maxRegistrationsPerIp: config.REGISTER_MAX_PER_IP,
    }),
    signAccessToken: (user, sessionId) =>
      app.jwt.sign({ sub: user.id, username: user.username, role: user.role, ...(sessionId ? { sid: sessionId } : {}) }),
  };
  // Expired refresh tokens are of no use, not even for reuse detection: purge them now and then.
  const purge = () =>
    void Promise.all([
      purgeExpiredRefreshTokens(deps.db, deps.clock()),
      purgeOldResetTokens(deps.db, deps.clock()),
    ]).catch((err) => deps.log.warn({ err }, 'refresh token purge failed'));
  purge();
  const purgeTimer = setInterval(purge, 60 * 60_000).unref();
  app.addHook('onClose', async () => clearInterval(purgeTimer));

  const bootstrap = await ensureBootstrapAdmin(ctx);
  if (bootstrap === 'taken') {
    app.log.error('bootstrap admin not created: its username or email belongs to an account it did not create');
  } else if (bootstrap !== 'not configured') app.log.info({ outcome: bootstrap }, 'bootstrap admin ensured');

  app.addHook('preValidation', refuseControlCharacters);
  // A 429 says when to come back.
  app.addHook('onError', async (_request, reply, error) => {
    if (error instanceof RateLimited) reply.header('retry-after', String(error.retryAfterSeconds));
  });

  registerHealth(app, {
    postgres: () => pingDb(deps.db),
    redis: () => pingRedis(deps.redis),
    nats: () => pingNats(deps.nats),
  });
  registerMetrics(app, deps.metrics);
  deps.metrics.gauge('auth_outbox_backlog', 'Events written but not yet published', [], async function () {
    this.set(await relay.backlog().catch(() => 0));
  });
  await app.register(async (scope) => userRoutes(scope, ctx));
  await app.register(async (scope) => sessionRoutes(scope, ctx));
  await app.register(async (scope) => adminRoutes(scope, ctx));
  await app.register(async (scope) => internalRoutes(scope, ctx));
  await app.register(async (scope) => passwordResetRoutes(scope, ctx));
  await app.register(async (scope) => activeSessionRoutes(scope, ctx));
  await app.register(async (scope) => verificationRoutes(scope, ctx));
  return app;
}
