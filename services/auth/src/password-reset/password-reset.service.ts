// Forgotten passwords: a mailed single-use link (its token minted when the mail is sent and stored hashed,
// valid PASSWORD_RESET_TTL_MINUTES from the request)
// to choose a new password; the reset ends every session of the account and tells its owner by mail.
// The request answers the same, at the same moment, whether or not the address has an account: the
// limits are counted first for every address, and the account's work happens after the answer.
import { appendAudit, auditParty } from '../audit/audit.repo.js';
import { makeEvent, SUBJECTS } from '@omc/contracts';
import { addressBudgetKey, badRequest } from '@omc/service-kit';
import type { AuthBase } from '../base.js';
import { enqueue } from '../events.js';
import { hashPassword } from '../security/passwords.js';
import { mailbox, mailQuota } from '../mail/quota.js';
import { countRequest } from '../security/request-limit.js';
import { securityEvent } from '../sessions/security-events.js';
import { findUserByEmail, findUserById, updateUser } from '../users/users.repo.js';
import { createResetRequest, findResetToken, lockResetToken } from './reset-tokens.repo.js';

const INVALID = 'This password reset link is not valid. Ask for a new one from "Forgot password?".';
const USED = 'This password reset link was already used. Ask for a new one from "Forgot password?".';
const EXPIRED = 'This password reset link has expired. Ask for a new one from "Forgot password?".';

export class PasswordResetService {
  constructor(private readonly base: AuthBase) {}

  /** Counts the request against the address's and the IP's limits (429 past them), then starts the work. */
  async requestPasswordReset(email: string, ip: string): Promise<void> {
    const { config } = this.base.deps;
    const address = email;
    await countRequest(this.base.deps.redis, config.RESET_WINDOW_MS, [
      {
        key: `reset:ip:${addressBudgetKey(ip)}`,
        max: config.RESET_MAX_PER_IP,
        message: (s) => `Too many password reset requests from your network. Try again in ${s} seconds.`,
      },
      {
        key: `reset:addr:${mailbox(address)}`,
        max: config.RESET_MAX_PER_ADDRESS,
        message: (s) => `Too many password reset requests for this address. Try again in ${s} seconds.`,
      },
      // The account is not looked up before the answer: counted by the address mailed.
      ...mailQuota(config, { to: [address] }),
    ]);
    // Not awaited: the answer must not take longer when the account exists.
    void this.issueReset(address).catch((err) =>
      this.base.deps.log.error({ err }, 'password reset request failed'),
    );
  }

  private async issueReset(address: string): Promise<void> {
    const { db, config } = this.base.deps;
    const user = await findUserByEmail(db, address);
    if (!user) return;
    const now = this.base.deps.clock();
    const expiresAt = now + config.PASSWORD_RESET_TTL_MINUTES * 60_000;
    await db.transaction().execute(async (trx) => {
      // The event names the request; the mailer mints the link's token when it sends (no token on the bus).
      const requestId = await createResetRequest(trx, user.id, expiresAt);
      await enqueue(
        trx,
        makeEvent(SUBJECTS.passwordResetRequested, {
          userId: user.id,
          email: user.email,
          language: user.preferred_language,
          requestId,
          expiresAt: new Date(expiresAt).toISOString(),
        }),
      );
    });
    this.base.relay.notify();
  }

  /** Sets the new password from a valid token; every session ends, every other mailed link dies. */
  async resetPassword(token: string, newPassword: string, ip?: string): Promise<void> {
    const { db } = this.base.deps;
    const found = await findResetToken(db, token);
    const check = (row: typeof found, now: number) => {
      if (!row) throw badRequest(INVALID, 'token');
      if (row.used_at) throw badRequest(USED, 'token');
      if (row.expires_at.getTime() <= now) throw badRequest(EXPIRED, 'token');
      return row;
    };
    check(found, this.base.deps.clock());
    const passwordHash = await hashPassword(newPassword);
    await db.transaction().execute(async (trx) => {
      const now = this.base.deps.clock();
      // Locked and checked again: of two requests racing with one token, one wins and the other is told.
      const row = check(await lockResetToken(trx, found!.id), now);
      const user = await findUserById(trx, row.user_id);
      if (!user) throw badRequest(INVALID, 'token');
      await updateUser(trx, user.id, { password_hash: passwordHash });
      // Every session, every token signed before, every pending email change and every reset link end.
      await securityEvent(trx, user.id, now, { all: true });
      await appendAudit(trx, { action: 'password.reset', actor: null, target: auditParty(user), ip });
      await enqueue(
        trx,
        makeEvent(SUBJECTS.passwordReset, {
          userId: user.id,
          email: user.email,
          language: user.preferred_language,
        }),
      );
    });
    this.base.relay.notify();
  }
}
