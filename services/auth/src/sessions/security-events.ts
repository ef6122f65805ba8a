// Security events: what a password change or reset, an email confirm or undo, "end session", "sign out
// everywhere" and an admin's suspension do to the account's other ways in. One place, so every
// event ends the same things: the thief's access tokens (the security version, or the session they name),
// their refresh families, every email change still waiting for its new address, and every mailed
// password-reset link. Undo links are not spent here: they are the owner's way back (email-change.service).
import { makeEvent, SUBJECTS } from '@omc/contracts';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { cancelPendingChanges } from '../email-change/email-changes.repo.js';
import { enqueue } from '../events.js';
import { useAllResetTokens } from '../password-reset/reset-tokens.repo.js';
import { findSecurityVersion, raiseSecurityEpoch, raiseSecurityVersionOf } from '../users/users.repo.js';
import { endSessions, type SessionsToEnd } from './end-sessions.js';

/** Which sessions the event ends (end-sessions.ts), or none. */
export type SessionsToEndOrNone = SessionsToEnd | { none: true };

/**
 * Raises the account's security version (every access token signed before is refused on account and
 * money routes from now on) unless `raiseVersion` is false, ends the sessions asked for (endSessions: each
 * announced, so every service refuses their access tokens), cancels every pending email change and spends
 * every password-reset link. A raised version is announced (auth.user.access_changed.v1, with the
 * account's whole access state) so the game refuses clicks of older tokens. Returns the security version
 * now, for a token the caller keeps.
 */
export async function securityEvent(
  trx: Transaction<Database>,
  userId: string,
  now: number,
  sessions: SessionsToEndOrNone,
  { raiseVersion = true }: { raiseVersion?: boolean } = {},
): Promise<number> {
  if (!('none' in sessions)) await endSessions(trx, userId, sessions, now);
  const row = raiseVersion ? await raiseSecurityVersion(trx, userId) : await findSecurityVersion(trx, userId);
  await spendMailedLinks(trx, userId, now);
  return row?.security_version ?? 0;
}

/**
 * Raises the account's security version and announces the account's access state at it (in the
 * caller's transaction: the outbox publishes it after commit). Every raise goes through here, so the
 * events, ordered by the version, each carry the whole state.
 */
export async function raiseSecurityVersion(
  trx: Transaction<Database>,
  userId: string,
): Promise<{ security_version: number } | undefined> {
  const row = await raiseSecurityVersionOf(trx, userId);
  if (!row) return undefined;
  await enqueue(
    trx,
    makeEvent(SUBJECTS.userAccessChanged, {
      userId,
      suspended: row.suspended_at !== null,
      reason: row.suspended_at ? row.suspended_reason : null,
      securityVersion: row.security_version,
    }),
  );
  return { security_version: row.security_version };
}

/**
 * Ends one session of the account (its owner's "end session": its holder may be a thief) and spends the
 * mailed links.
 */
export async function endOneSession(
  trx: Transaction<Database>,
  userId: string,
  familyId: string,
  now: number,
): Promise<void> {
  await securityEvent(trx, userId, now, { only: familyId }, { raiseVersion: false });
}

async function spendMailedLinks(db: Kysely<Database> | Transaction<Database>, userId: string, now: number) {
  await cancelPendingChanges(db, userId, now);
  await useAllResetTokens(db, userId, now);
  // Links other services mailed (payments' payout email confirmation) carry the epoch they were minted
  // under and are refused under another one.
  await raiseSecurityEpoch(db, userId);
}
