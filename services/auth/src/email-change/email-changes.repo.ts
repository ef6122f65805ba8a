// The only code that reads and writes email_changes. Tokens are random, stored as their sha256.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, EmailChangesTable } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;
export type EmailChangeRow = Selectable<EmailChangesTable>;

const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export interface NewEmailChange {
  userId: string;
  oldEmail: string;
  oldEmailVerifiedAt: Date | null;
  newEmail: string;
  now: number;
  expiresAt: number;
  undoExpiresAt: number;
}

/** Stores a pending change; returns the raw tokens of its confirm and undo links (never stored). */
export async function createEmailChange(
  db: Db,
  change: NewEmailChange,
): Promise<{ id: string; confirmToken: string; undoToken: string }> {
  const id = randomUUID();
  const confirmToken = randomBytes(32).toString('base64url');
  const undoToken = randomBytes(32).toString('base64url');
  await db
    .insertInto('email_changes')
    .values({
      id,
      user_id: change.userId,
      old_email: change.oldEmail,
      old_email_verified_at: change.oldEmailVerifiedAt,
      new_email: change.newEmail,
      confirm_token_hash: hashToken(confirmToken),
      undo_token_hash: hashToken(undoToken),
      created_at: new Date(change.now),
      expires_at: new Date(change.expiresAt),
      undo_expires_at: new Date(change.undoExpiresAt),
    })
    .execute();
  return { id, confirmToken, undoToken };
}

export function findByConfirmToken(db: Db, token: string): Promise<EmailChangeRow | undefined> {
  return db
    .selectFrom('email_changes')
    .selectAll()
    .where('confirm_token_hash', '=', hashToken(token))
    .executeTakeFirst();
}

export function findByUndoToken(db: Db, token: string): Promise<EmailChangeRow | undefined> {
  return db
    .selectFrom('email_changes')
    .selectAll()
    .where('undo_token_hash', '=', hashToken(token))
    .executeTakeFirst();
}

export function lockEmailChange(trx: Transaction<Database>, id: string): Promise<EmailChangeRow | undefined> {
  return trx.selectFrom('email_changes').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** The change still waiting for its new address, if any (the newest; older ones are cancelled). */
export function findPendingChange(db: Db, userId: string, now: number): Promise<EmailChangeRow | undefined> {
  return db
    .selectFrom('email_changes')
    .selectAll()
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is', null)
    .where('cancelled_at', 'is', null)
    .where('expires_at', '>', new Date(now))
    .orderBy('created_at', 'desc')
    .executeTakeFirst();
}

/** Cancels every change of the account still waiting for its new address: their confirm links die. */
export async function cancelPendingChanges(db: Db, userId: string, now: number): Promise<void> {
  await db
    .updateTable('email_changes')
    .set({ cancelled_at: new Date(now) })
    .where('user_id', '=', userId)
    .where('confirmed_at', 'is', null)
    .where('cancelled_at', 'is', null)
    .execute();
}

export async function markConfirmed(db: Db, id: string, now: number): Promise<void> {
  await db
    .updateTable('email_changes')
    .set({ confirmed_at: new Date(now) })
    .where('id', '=', id)
    .execute();
}

/** Spends the undo links of this change and of every later one of the account. */
export async function markUndoneSince(db: Db, change: EmailChangeRow, now: number): Promise<void> {
  await db
    .updateTable('email_changes')
    .set({ undone_at: new Date(now) })
    .where('user_id', '=', change.user_id)
    .where('created_at', '>=', change.created_at)
    .where('undone_at', 'is', null)
    .execute();
}

/** Deletes changes whose undo link expired more than a day ago. */
export async function purgeOldEmailChanges(db: Db, now: number): Promise<void> {
  await db
    .deleteFrom('email_changes')
    .where('undo_expires_at', '<', new Date(now - 24 * 3600_000))
    .execute();
}
