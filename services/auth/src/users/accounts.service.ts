// The rules of an account: sign-up, sign-in, the profile's changes and deletion. Every change that other
// services must learn about is written to the outbox in the same transaction.
import { appendAudit, auditParty } from '../audit/audit.repo.js';
import { randomUUID } from 'node:crypto';
import {
  ACCOUNT_SUSPENDED,
  DEFAULT_LANGUAGE,
  ERROR_CODE,
  GameProfile,
  makeEvent,
  PaymentsProfile,
  SUBJECTS,
  suspendedMessage,
  type Language,
  type LoginRequest,
  type ProfileResponse,
  type RegisterRequest,
} from '@omc/contracts';
import { AppError, badRequest, conflict, unauthorized, type Caller } from '@omc/service-kit';
import { enqueue, enqueueRegistered } from '../events.js';
import type { AuthBase } from '../base.js';
import type { EmailChangeService } from '../email-change/email-change.service.js';
import { callUpstream } from '../profile/upstreams.js';
import { hashPassword, verifyPassword } from '../security/passwords.js';
import { verificationRequest } from '../verification/verification.service.js';
import { RateLimited } from '../security/login-guard.js';
import { countRequest } from '../security/request-limit.js';
import { mailQuota } from '../mail/quota.js';
import { issueRefreshToken, type ClientInfo } from '../sessions/refresh-tokens.js';
import { endSessions } from '../sessions/end-sessions.js';
import { lockSessionsOf } from '../sessions/sessions.repo.js';
import { securityEvent } from '../sessions/security-events.js';
import {
  deleteUser,
  findUserByLogin,
  insertUser,
  lockAdmins,
  UniqueViolation,
  updateUser,
  type UserRow,
} from './users.repo.js';

export interface SignedIn {
  user: UserRow;
  accessToken: string;
  refreshToken: string;
}

export interface Registered extends SignedIn {
  /** Seconds until the verification mail may be asked for again, when the mail quota left it unsent. */
  verificationMailIn?: number;
}

const INVALID_CREDENTIALS = 'Invalid credentials';

function uniqueConflict(error: unknown): never {
  if (error instanceof UniqueViolation) {
    throw error.field === 'username'
      ? conflict('This username is already taken', 'username')
      : conflict('This email is already registered', 'email');
  }
  throw error;
}

export class AccountsService {
  constructor(
    private readonly base: AuthBase,
    private readonly emailChange: EmailChangeService,
  ) {}

  private refreshSettings() {
    return {
      ttlSeconds: this.base.deps.config.REFRESH_TTL_SECONDS,
      reuseGraceMs: this.base.deps.config.REFRESH_REUSE_GRACE_MS,
    };
  }

  async register(input: RegisterRequest, ip: string, userAgent?: string): Promise<Registered> {
    await this.base.guard.countRegistration(ip);
    const passwordHash = await hashPassword(input.password);
    const now = this.base.deps.clock();
    const id = randomUUID();
    // The verification mail is under the one mail quota; past it, the account is still made, unmailed.
    let verificationMailIn: number | undefined;
    try {
      await countRequest(
        this.base.deps.redis,
        this.base.deps.config.RESET_WINDOW_MS,
        mailQuota(this.base.deps.config, { accountId: id, to: [input.email] }),
      );
    } catch (error) {
      if (!(error instanceof RateLimited)) throw error;
      verificationMailIn = error.retryAfterSeconds;
    }
    try {
      const { user, session } = await this.base.deps.db.transaction().execute(async (trx) => {
        const user = await insertUser(trx, {
          id,
          username: input.username,
          email: input.email,
          passwordHash,
          role: 'standard',
          preferredLanguage: input.preferredLanguage ?? DEFAULT_LANGUAGE,
        });
        await enqueueRegistered(trx, user);
        if (verificationMailIn === undefined) await enqueue(trx, verificationRequest(user));
        const session = await issueRefreshToken(trx, user.id, now, this.refreshSettings(), undefined, {
          ip,
          userAgent,
        });
        return { user, session };
      });
      this.base.relay.notify();
      this.base.deps.counters.registrations.inc();
      return {
        user,
        refreshToken: session.token,
        accessToken: this.base.signAccessToken(user, session.familyId),
        verificationMailIn,
      };
    } catch (error) {
      uniqueConflict(error);
    }
  }

  async login(input: LoginRequest, ip: string, userAgent?: string): Promise<SignedIn> {
    const { logins } = this.base.deps.counters;
    const user = await findUserByLogin(this.base.deps.db, input.emailOrUsername);
    // Unknown names are limited under their own key, exactly like real accounts, so limits reveal nothing.
    const account = user ? `user:${user.id}` : `name:${input.emailOrUsername.toLowerCase()}`;
    try {
      await this.base.guard.reserve(ip, account);
    } catch (error) {
      if (error instanceof RateLimited) logins.inc({ outcome: 'locked' });
      throw error;
    }
    const valid = await verifyPassword(user?.password_hash, input.password);
    if (!user || !valid) {
      await this.base.guard.fail(ip, account);
      logins.inc({ outcome: 'invalid' });
      throw unauthorized(INVALID_CREDENTIALS);
    }
    await this.base.guard.succeed(ip, account);
    const suspended = (reason: string | null) => {
      logins.inc({ outcome: 'suspended' });
      return new AppError(ACCOUNT_SUSPENDED, 403, suspendedMessage(reason));
    };
    // Only someone who knows the password learns of the suspension and its reason.
    if (user.suspended_at) throw suspended(user.suspended_reason);
    const client: ClientInfo = { ip, userAgent };
    // The session starts under the account's lock, the one every ending takes: a password change (or a
    // suspension) that committed since the checks above is seen here, and the login is refused.
    const session = await this.base.deps.db.transaction().execute(async (trx) => {
      const locked = await lockSessionsOf(trx, user.id);
      if (locked?.password_hash !== user.password_hash) return 'invalid' as const;
      if (locked.suspended_at) return { suspendedFor: locked.suspended_reason };
      return issueRefreshToken(
        trx,
        user.id,
        this.base.deps.clock(),
        this.refreshSettings(),
        undefined,
        client,
      );
    });
    if (session === 'invalid') {
      logins.inc({ outcome: 'invalid' });
      throw unauthorized(INVALID_CREDENTIALS);
    }
    if ('suspendedFor' in session) throw suspended(session.suspendedFor);
    logins.inc({ outcome: 'success' });
    return {
      user,
      refreshToken: session.token,
      accessToken: this.base.signAccessToken(user, session.familyId),
    };
  }

  async profile(
    user: UserRow,
    caller: Caller,
    options: { accountOnly?: boolean } = {},
  ): Promise<ProfileResponse> {
    const { GAME_URL, PAYMENTS_URL } = this.base.deps.config;
    const notAsked = { ok: false, reason: 'asked by the gateway' } as const;
    const [game, payments, pendingEmail] = await Promise.all([
      options.accountOnly
        ? notAsked
        : callUpstream(this.base.deps, `${GAME_URL}/api/game/profile`, GameProfile, caller),
      options.accountOnly
        ? notAsked
        : callUpstream(this.base.deps, `${PAYMENTS_URL}/api/payments/profile`, PaymentsProfile, caller),
      this.emailChange.pendingEmailOf(user.id),
    ]);
    if (!options.accountOnly) {
      if (!game.ok) caller.log.warn({ reason: game.reason }, 'game profile unavailable');
      if (!payments.ok) caller.log.warn({ reason: payments.reason }, 'payments profile unavailable');
    }
    return {
      username: user.username,
      email: user.email,
      role: user.role,
      preferredLanguage: user.preferred_language,
      freeClicks: game.ok ? game.data.freeClicks : null,
      purchasedClicks: game.ok ? game.data.purchasedClicks : null,
      hasInfiniteClicks: game.ok ? game.data.hasInfiniteClicks : null,
      potEarned: payments.ok ? payments.data.potEarned : null,
      emailVerified: user.email_verified_at !== null,
      pendingEmail,
      paypalEmail: payments.ok ? payments.data.paypalEmail : null,
      adminBalance: payments.ok ? payments.data.adminBalance : null,
    };
  }

  async changeLanguage(user: UserRow, language: Language): Promise<void> {
    await updateUser(this.base.deps.db, user.id, { preferred_language: language });
  }

  async changeUsername(user: UserRow, username: string): Promise<void> {
    if (username === user.username) return;
    try {
      await this.base.deps.db.transaction().execute(async (trx) => {
        await updateUser(trx, user.id, { username });
        await enqueue(trx, makeEvent(SUBJECTS.userRenamed, { userId: user.id, username }));
      });
    } catch (error) {
      uniqueConflict(error);
    }
    this.base.relay.notify();
  }

  /** Checks the current password under the same brute-force limits as login: wrong is a 400 naming it. */
  async checkCurrentPassword(user: UserRow, currentPassword: string, ip: string): Promise<void> {
    const account = `user:${user.id}`;
    await this.base.guard.reserve(ip, account);
    if (!(await verifyPassword(user.password_hash, currentPassword))) {
      await this.base.guard.fail(ip, account);
      throw badRequest('Current password is incorrect', 'currentPassword');
    }
    await this.base.guard.succeed(ip, account);
  }

  /**
   * Proof that the caller is the owner and not someone holding a copy of the token, for changes that hand
   * the account (or its money) to an address: the current password, or a sign-in with a password within
   * REAUTH_WINDOW_SECONDS (the original client sends no password with an email change).
   */
  async requireRecentAuth(
    user: UserRow,
    signedInAt: Date | null,
    currentPassword: string | undefined,
    ip: string,
  ): Promise<void> {
    if (currentPassword !== undefined) return this.checkCurrentPassword(user, currentPassword, ip);
    const windowMs = this.base.deps.config.REAUTH_WINDOW_SECONDS * 1000;
    if (signedInAt && this.base.deps.clock() - signedInAt.getTime() <= windowMs) return;
    throw badRequest(
      `currentPassword is required: enter your current password (or sign in again) to make this change`,
      'currentPassword',
    );
  }

  /**
   * Checks the current password, stores the new hash and ends every other session (their refresh families
   * and, by the session check, their access tokens at once), every pending email change and every reset
   * link. This session carries on, as the original client expects after a password change (it keeps its token);
   * "sign out everywhere" is what also ends copies of this session's token. Returns a token of this session.
   */
  async changePassword(
    user: UserRow,
    sessionId: string,
    currentPassword: string,
    newPassword: string,
    ip: string,
  ): Promise<string> {
    await this.checkCurrentPassword(user, currentPassword, ip);
    const passwordHash = await hashPassword(newPassword);
    const now = this.base.deps.clock();
    const token = await this.base.deps.db.transaction().execute(async (trx) => {
      await updateUser(trx, user.id, { password_hash: passwordHash });
      const version = await securityEvent(trx, user.id, now, { allBut: sessionId }, { raiseVersion: false });
      await appendAudit(trx, {
        action: 'password.changed',
        actor: auditParty(user),
        target: auditParty(user),
        ip,
      });
      return this.base.signAccessToken({ ...user, security_version: version }, sessionId);
    });
    this.base.relay.notify();
    return token;
  }

  /**
   * Deletes the account and every personal datum auth holds (the row and its sessions). Refused while
   * payments reports uncollected winnings, and refused when payments cannot be asked: never delete blind.
   */
  async deleteAccount(user: UserRow, caller: Caller): Promise<void> {
    const payments = await callUpstream(
      this.base.deps,
      `${this.base.deps.config.PAYMENTS_URL}/api/payments/profile`,
      PaymentsProfile,
      caller,
    );
    if (!payments.ok) {
      caller.log.warn({ reason: payments.reason }, 'payments unavailable; account deletion refused');
      throw new AppError(
        ERROR_CODE.UNAVAILABLE,
        503,
        'Cannot check your winnings right now, so the account was not deleted. Please try again later.',
      );
    }
    if (payments.data.potEarned > 0) {
      throw conflict(
        `You have uncollected winnings (${payments.data.potEarned.toFixed(2)}). Collect them before deleting your account.`,
      );
    }
    await this.base.deps.db.transaction().execute(async (trx) => {
      if (user.role === 'admin') {
        const admins = await lockAdmins(trx);
        if (admins.length <= 1 && admins.includes(user.id))
          throw conflict('The last admin cannot delete their account. Make another user admin first.');
      }
      // Its sessions end first, each announced: the row's deletion takes their records with it.
      await endSessions(trx, user.id, { all: true }, this.base.deps.clock());
      await deleteUser(trx, user.id);
      await enqueue(trx, makeEvent(SUBJECTS.userDeleted, { userId: user.id }));
    });
    this.base.relay.notify();
  }
}
