import fastifyCookie from '@fastify/cookie';
import { STREAMS } from '@omc/contracts';
import {
  createServiceApp,
  ensureStream,
  migrateToLatest,
  observeConsumerLag,
  Notifier,
  outboxBacklog,
  startOutboxRelay,
  startRetention,
  startedHandle,
  type Started,
} from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import { adminRoutes } from './admin/admin.routes.js';
import { approvalRoutes } from './approvals/approvals.routes.js';
import { ApprovalsService } from './approvals/approvals.service.js';
import { AdminService } from './admin/admin.service.js';
import { SuspensionService } from './admin/suspension.service.js';
import type { AuthBase } from './base.js';
import { emailChangeRoutes } from './email-change/email-change.routes.js';
import { EmailChangeService } from './email-change/email-change.service.js';
import { purgeOldEmailChanges } from './email-change/email-changes.repo.js';
import type { AuthContext } from './context.js';
import { migrations } from './db/migrations/index.js';
import { startMail } from './mail/index.js';
import { accountSecurityRoutes, payoutEmailMailRoutes } from './payout-email/payout-email.routes.js';
import { PayoutEmailService } from './payout-email/payout-email.service.js';
import { passwordResetRoutes } from './password-reset/password-reset.routes.js';
import { PasswordResetService } from './password-reset/password-reset.service.js';
import { purgeOldResetTokens } from './password-reset/reset-tokens.repo.js';
import { activeSessionRoutes } from './sessions/active-sessions.routes.js';
import { ActiveSessionsService } from './sessions/active-sessions.service.js';
import { verificationRoutes } from './verification/verification.routes.js';
import { VerificationService } from './verification/verification.service.js';
import type { Deps } from './deps.js';
import { refuseControlCharacters } from './security/control-characters.js';
import { LoginGuard, RateLimited } from './security/login-guard.js';
import { purgeExpiredRefreshTokens } from './sessions/refresh-tokens.js';
import { sessionRoutes } from './sessions/session.routes.js';
import { AccountsService } from './users/accounts.service.js';
import { ensureBootstrapAdmin } from './users/bootstrap-admin.js';
import { internalRoutes } from './users/internal.routes.js';
import { userRoutes } from './users/user.routes.js';

export interface AuthApp extends FastifyInstance {
  auth: AuthContext;
}

/** How often start()'s loops look for work they were not told of (tests shorten them). */
export interface AuthStartOptions {
  outboxIntervalMs?: number;
  mailIntervalMs?: number;
}

export async function buildApp(deps: Deps, options: { logger?: false } = {}): Promise<AuthApp> {
  const { config } = deps;
  const app = await createServiceApp(deps, {
    name: 'auth',
    // Believe X-Forwarded-For from the nearest TRUST_PROXY_HOPS peers (the gateway), no further.
    trustProxyHops: config.TRUST_PROXY_HOPS,
    logger: options.logger,
    tokens: { publicKey: config.JWT_PUBLIC_KEY, privateKey: config.JWT_PRIVATE_KEY },
    // Events wait in the outbox while NATS is away; only Postgres is needed to serve.
    readyWithout: ['nats'],
    internalCallers: deps.credentials,
  });
  await app.register(fastifyCookie);
  app.decorateRequest('account', null);
  app.decorateRequest('signedInAt', null);

  const base: AuthBase = {
    deps,
    relay: new Notifier(),
    mail: new Notifier(),
    guard: new LoginGuard(deps.redis, {
      windowMs: config.LOGIN_WINDOW_MS,
      lockoutMs: config.LOGIN_LOCKOUT_MS,
      maxPerIp: config.LOGIN_MAX_FAILURES_PER_IP,
      maxPerAccountIp: config.LOGIN_MAX_FAILURES_PER_ACCOUNT_IP,
      maxPerAccount: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      maxRegistrationsPerIp: config.REGISTER_MAX_PER_IP,
    }),
    signAccessToken: (user, sessionId) =>
      app.jwt.sign({
        sub: user.id,
        username: user.username,
        role: user.role,
        sid: sessionId,
        sv: user.security_version,
      }),
  };
  // Built in the order they call each other: a service receives the ones it calls.
  const emailChange = new EmailChangeService(base);
  const accounts = new AccountsService(base, emailChange);
  const ctx: AuthContext = {
    ...base,
    accounts,
    admin: new AdminService(base),
    suspension: new SuspensionService(base),
    approvals: new ApprovalsService(base, accounts),
    emailChange,
    passwordReset: new PasswordResetService(base),
    payoutEmail: new PayoutEmailService(base, accounts),
    activeSessions: new ActiveSessionsService(base),
    verification: new VerificationService(base),
  };
  app.decorate('auth', ctx);

  app.addHook('preValidation', refuseControlCharacters);
  // A 429 says when to come back.
  app.addHook('onError', async (_request, reply, error) => {
    if (error instanceof RateLimited) reply.header('retry-after', String(error.retryAfterSeconds));
  });

  deps.metrics.gauge('auth_outbox_backlog', 'Events written but not yet published', [], async function () {
    this.set(await outboxBacklog(deps.db).catch(() => -1));
  });
  for (const routes of [
    userRoutes,
    sessionRoutes,
    adminRoutes,
    approvalRoutes,
    internalRoutes,
    payoutEmailMailRoutes,
    accountSecurityRoutes,
    passwordResetRoutes,
    activeSessionRoutes,
    verificationRoutes,
    emailChangeRoutes,
  ])
    await app.register(routes, ctx);
  return app as AuthApp;
}

/**
 * Migrations, the stream, the outbox relay, the mail sender, the purges and the bootstrap admin; its
 * handle's stop(), after the app is closed, stops the loops.
 */
export async function start(app: AuthApp, options: AuthStartOptions = {}): Promise<Started> {
  const ctx = app.auth;
  const { deps } = ctx;
  await migrateToLatest(deps.db, migrations);
  await ensureStream(deps.nats.jsm, STREAMS.auth, { replicas: deps.config.NATS_STREAM_REPLICAS });
  // auth-mail's lag and dead letters on /metrics, like every other durable consumer's.
  observeConsumerLag(deps.metrics, deps.nats);

  const relay = startOutboxRelay(deps.db, deps.nats, deps.log, {
    ...(options.outboxIntervalMs ? { intervalMs: options.outboxIntervalMs } : {}),
    onPublished: (subject) => deps.counters.eventsPublished.inc({ subject }),
  });
  const stopNudgingRelay = ctx.relay.listen(() => relay.nudge());
  // Old outbox rows and processed-event marks are deleted (retention; sent mail: the mail sender).
  const retention = startRetention({ db: deps.db, log: deps.log, clock: deps.clock, config: deps.config });
  const mail = startMail(deps, options.mailIntervalMs ? { intervalMs: options.mailIntervalMs } : {});
  const stopNudgingMail = ctx.mail.listen(() => mail.sender.nudge());

  // Expired refresh tokens are of no use, not even for reuse detection: purge them now and then.
  const purge = () =>
    void Promise.all([
      purgeExpiredRefreshTokens(deps.db, deps.clock()),
      purgeOldResetTokens(deps.db, deps.clock()),
      purgeOldEmailChanges(deps.db, deps.clock()),
    ]).catch((err) => deps.log.warn({ err }, 'refresh token purge failed'));
  purge();
  const purgeTimer = setInterval(purge, 60 * 60_000).unref();

  // Two-admin requests past their expiry are marked, audited and mailed within a minute (every read of
  // the list, and every decision, marks them first).
  const expire = () =>
    void ctx.approvals.expireOverdue().catch((err) => deps.log.warn({ err }, 'approval expiry sweep failed'));
  const expiryTimer = setInterval(expire, 60_000).unref();
  const started = startedHandle({}, async () => {
    clearInterval(expiryTimer);
    clearInterval(purgeTimer);
    stopNudgingMail();
    await mail.stop();
    await retention.stop();
    stopNudgingRelay();
    await relay.stop();
  });

  const bootstrap = await ensureBootstrapAdmin(ctx);
  if (bootstrap === 'taken') {
    app.log.error(
      'bootstrap admin not created: its username or email belongs to an account it did not create',
    );
  } else if (bootstrap !== 'not configured') app.log.info({ outcome: bootstrap }, 'bootstrap admin ensured');
  return started;
}
