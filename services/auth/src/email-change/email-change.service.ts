// Email change: the account keeps its address until the new one confirms from a mailed single-use link;
// the old address is told at once, with an undo link that works until EMAIL_CHANGE_UNDO_DAYS after the
// request, confirmed or not. Undoing restores the old address and ends every session, since whoever
// asked for the change may hold the account. A new request replaces the one still waiting.
import { appendAudit, auditParty } from '../audit/audit.repo.js';
import { makeEvent, SUBJECTS } from '@omc/contracts';
import { addressBudgetKey, badRequest, conflict, forbidden } from '@omc/service-kit';
import type { AuthBase } from '../base.js';
import { enqueue } from '../events.js';
import { mailQuota } from '../mail/quota.js';
import { countRequest } from '../security/request-limit.js';
import { securityEvent } from '../sessions/security-events.js';
import {
  findUserByEmail,
  lockUserById,
  UniqueViolation,
  updateUser,
  type UserRow,
} from '../users/users.repo.js';
import {
  cancelPendingChanges,
  createEmailChange,
  findByConfirmToken,
  findByUndoToken,
  findPendingChange,
  lockEmailChange,
  markConfirmed,
  markUndoneSince,
  type EmailChangeRow,
} from './email-changes.repo.js';

const TAKEN = 'This email is already registered';

const CONFIRM_INVALID =
  'This email confirmation link is not valid. Change your email again from your profile.';

function checkConfirmable(row: EmailChangeRow | undefined, now: number): EmailChangeRow {
  if (!row) throw badRequest(CONFIRM_INVALID, 'token');
  if (row.confirmed_at) throw badRequest('This email confirmation link was already used.', 'token');
  if (row.undone_at)
    throw badRequest(
      'This email change was undone from the old address, so it cannot be confirmed.',
      'token',
    );
  if (row.cancelled_at)
    throw badRequest(
      'This email change was replaced by a newer request or cancelled. Use the link in the newest mail.',
      'token',
    );
  if (row.expires_at.getTime() <= now)
    throw badRequest(
      'This email confirmation link has expired. Change your email again from your profile.',
      'token',
    );
  return row;
}

const UNDO_INVALID = 'This undo link is not valid.';

/**
 * When the old address can no longer undo: EMAIL_CHANGE_UNDO_DAYS after the request, and at the latest
 * EMAIL_CHANGE_UNDO_AFTER_CONFIRM_HOURS after the new address confirmed (the change has settled).
 */
export function undoDeadline(row: EmailChangeRow, afterConfirmHours: number): number {
  const requested = row.undo_expires_at.getTime();
  return row.confirmed_at
    ? Math.min(requested, row.confirmed_at.getTime() + afterConfirmHours * 3600_000)
    : requested;
}

function checkUndoable(
  row: EmailChangeRow | undefined,
  now: number,
  afterConfirmHours: number,
): EmailChangeRow {
  if (!row) throw badRequest(UNDO_INVALID, 'token');
  if (row.undone_at) throw badRequest('This undo link was already used: the change is undone.', 'token');
  if (undoDeadline(row, afterConfirmHours) <= now)
    throw badRequest(
      'This undo link has expired. Reset your password from "Forgot password?" and contact us.',
      'token',
    );
  return row;
}

export class EmailChangeService {
  constructor(private readonly base: AuthBase) {}

  /**
   * `'updated'` when the address is the account's own (in another case, applied at once; the same one
   * cancels a change still waiting), `'pending'` when a confirmation link went to the new address.
   */
  async requestEmailChange(user: UserRow, email: string, ip: string): Promise<'updated' | 'pending'> {
    const { db, config } = this.base.deps;
    const now = this.base.deps.clock();
    // Only the very same bytes are "no change". Any other spelling, even one that compares equal (another
    // case, U+212A KELVIN SIGN for "k"), is a real change: confirmed by its inbox, told to the old one.
    if (email === user.email) {
      await cancelPendingChanges(db, user.id, now);
      return 'updated';
    }
    // Counted before any work, like the resend: each request mails two addresses.
    await countRequest(this.base.deps.redis, config.RESET_WINDOW_MS, [
      {
        key: `email-change:ip:${addressBudgetKey(ip)}`,
        max: config.RESET_MAX_PER_IP,
        message: (s) => `Too many email changes asked from your network. Try again in ${s} seconds.`,
      },
      {
        key: `email-change:user:${user.id}`,
        max: config.EMAIL_CHANGE_MAX_PER_ACCOUNT,
        message: (s) => `Too many email changes asked for this account. Try again in ${s} seconds.`,
      },
      // The link to the new address, the notice to the current one.
      ...mailQuota(config, { accountId: user.id, to: [user.email, email] }),
    ]);
    const owner = await findUserByEmail(db, email);
    if (owner && owner.id !== user.id) throw conflict(TAKEN, 'email');
    const expiresAt = now + config.EMAIL_CHANGE_TTL_HOURS * 3600_000;
    const undoExpiresAt = now + config.EMAIL_CHANGE_UNDO_DAYS * 24 * 3600_000;
    await db.transaction().execute(async (trx) => {
      // Locked: two requests at once leave one pending change, the later one.
      const current = await lockUserById(trx, user.id);
      if (!current) throw badRequest('No such account');
      await cancelPendingChanges(trx, user.id, now);
      // The event names the change; the mailer mints both links' tokens when it sends them.
      const requestId = await createEmailChange(trx, {
        userId: user.id,
        oldEmail: current.email,
        oldEmailVerifiedAt: current.email_verified_at,
        newEmail: email,
        now,
        expiresAt,
        undoExpiresAt,
      });
      await enqueue(
        trx,
        makeEvent(SUBJECTS.emailChangeRequested, {
          userId: user.id,
          oldEmail: current.email,
          newEmail: email,
          language: current.preferred_language,
          requestId,
          expiresAt: new Date(expiresAt).toISOString(),
          undoExpiresAt: new Date(undoExpiresAt).toISOString(),
        }),
      );
    });
    this.base.relay.notify();
    return 'pending';
  }

  /** The address a change waits to be confirmed from, for the profile. */
  async pendingEmailOf(userId: string): Promise<string | null> {
    return (await findPendingChange(this.base.deps.db, userId, this.base.deps.clock()))?.new_email ?? null;
  }

  /**
   * Switches the account to the new address from the link mailed to it (which proves the address, so it is
   * verified). Signed in as another account, 403; the address taken by another account meanwhile, 409.
   */
  async confirmEmailChange(token: string, callerId?: string, ip?: string): Promise<string> {
    const { db } = this.base.deps;
    const found = checkConfirmable(await findByConfirmToken(db, token), this.base.deps.clock());
    if (callerId && callerId !== found.user_id)
      throw forbidden('This confirmation link belongs to another account');
    const email = await db.transaction().execute(async (trx) => {
      const now = this.base.deps.clock();
      // Locked and checked again: of two uses racing with one link, one wins and the other is told.
      const row = checkConfirmable(await lockEmailChange(trx, found.id), now);
      const user = await lockUserById(trx, row.user_id);
      if (!user) throw badRequest(CONFIRM_INVALID, 'token');
      if (user.email !== row.old_email)
        throw badRequest(
          'The account changed its email since this link was sent. Use the newest mail.',
          'token',
        );
      const owner = await findUserByEmail(trx, row.new_email);
      if (owner && owner.id !== user.id) throw conflict(`${TAKEN}: the change was not made`, 'email');
      try {
        await updateUser(trx, user.id, { email: row.new_email, email_verified_at: new Date(now) });
      } catch (error) {
        if (error instanceof UniqueViolation) throw conflict(`${TAKEN}: the change was not made`, 'email');
        throw error;
      }
      await markConfirmed(trx, row.id, now);
      // Every reset link (mailed to the old inbox, which whoever moved away from may not trust) and any
      // other pending change die. Sessions and tokens stay: the original client carries on after an email change,
      // and ending tokens here would end the owner's, not a thief's (the undo is what ends everything).
      await securityEvent(trx, user.id, now, { none: true }, { raiseVersion: false });
      await appendAudit(trx, {
        action: 'email.changed',
        actor: callerId ? auditParty(user) : null,
        target: auditParty(user),
        detail: { from: row.old_email, to: row.new_email, by: 'confirm' },
        ip,
      });
      await enqueue(trx, makeEvent(SUBJECTS.userEmailChanged, { userId: user.id, email: row.new_email }));
      await enqueue(trx, makeEvent(SUBJECTS.emailVerified, { userId: user.id, email: row.new_email }));
      return row.new_email;
    });
    this.base.relay.notify();
    return email;
  }

  /**
   * Restores the address the change left (and whether it was verified), cancels any change still waiting,
   * spends the undo links of this and later changes and the password-reset links, and ends every session.
   * Returns the restored address.
   */
  async undoEmailChange(token: string, callerId?: string, ip?: string): Promise<string> {
    const { db } = this.base.deps;
    const settleHours = this.base.deps.config.EMAIL_CHANGE_UNDO_AFTER_CONFIRM_HOURS;
    const found = checkUndoable(await findByUndoToken(db, token), this.base.deps.clock(), settleHours);
    if (callerId && callerId !== found.user_id) throw forbidden('This undo link belongs to another account');
    const email = await db.transaction().execute(async (trx) => {
      const now = this.base.deps.clock();
      const row = checkUndoable(await lockEmailChange(trx, found.id), now, settleHours);
      const user = await lockUserById(trx, row.user_id);
      if (!user) throw badRequest(UNDO_INVALID, 'token');
      if (user.email !== row.old_email) {
        const owner = await findUserByEmail(trx, row.old_email);
        if (owner && owner.id !== user.id)
          throw conflict(
            'The old address now belongs to another account, so it cannot be restored. Contact us.',
            'email',
          );
        await updateUser(trx, user.id, {
          email: row.old_email,
          email_verified_at: row.old_email_verified_at,
        });
        await enqueue(trx, makeEvent(SUBJECTS.userEmailChanged, { userId: user.id, email: row.old_email }));
      }
      await markUndoneSince(trx, row, now);
      // Whoever changed the address may hold the account: every session, every token signed before, every
      // pending change and every mailed reset link end.
      await securityEvent(trx, user.id, now, { all: true });
      await appendAudit(trx, {
        action: 'email.changed',
        actor: callerId ? auditParty(user) : null,
        target: auditParty(user),
        detail: { from: user.email, to: row.old_email, by: 'undo' },
        ip,
      });
      // The address the change moved to is told, so its holder (if it was the owner) is not left guessing.
      if (row.new_email !== row.old_email)
        await enqueue(
          trx,
          makeEvent(SUBJECTS.emailChangeUndone, {
            userId: user.id,
            undoneEmail: row.new_email,
            restoredEmail: row.old_email,
            language: user.preferred_language,
          }),
        );
      return row.old_email;
    });
    this.base.relay.notify();
    return email;
  }
}
