// The only code that reads and writes email_changes. A change is stored without tokens; the mailer mints
// its confirm and undo links' tokens when it sends them (random, stored as their sha256 only).
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

/** Stores a pending change; the tokens of its links are minted when the mails are sent. */
export async function createEmailChange(db: Db, change: NewEmailChange): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('email_changes')
    .values({
      id,
      user_id: change.userId,
      old_email: change.oldEmail,
      old_email_verified_at: change.oldEmailVerifiedAt,
      new_email: change.newEmail,
      confirm_token_hash: null,
      undo_token_hash: null,
      created_at: new Date(change.now),
      expires_at: new Date(change.expiresAt),
      undo_expires_at: new Date(change.undoExpiresAt),
    })
    .execute();
  return id;
}

const newToken = () => randomBytes(32).toString('base64url');

/**
 * A fresh token for the change's confirm link (replacing one minted before); null when the change is
 * confirmed, cancelled (a newer request, a security event), undone, expired or gone.
 */
export async function mintConfirmToken(db: Db, id: string, now: number): Promise<string | null> {
  const token = newToken();
  const row = await db
    .updateTable('email_changes')
    .set({ confirm_token_hash: hashToken(token) })
    .where('id', '=', id)
    .where('confirmed_at', 'is', null)
    .where('cancelled_at', 'is', null)
    .where('undone_at', 'is', null)
    .where('expires_at', '>', new Date(now))
    .returning('id')
    .executeTakeFirst();
  return row ? token : null;
}

/**
 * A fresh token for the change's undo link (replacing one minted before); null once the change is undone
 * or its undo deadline passed (the same rule as the undo itself: undoDeadline).
 */
export async function mintUndoToken(
  db: Db,
  id: string,
  now: number,
  afterConfirmHours: number,
): Promise<string | null> {
  const token = newToken();
  const row = await db
    .updateTable('email_changes')
    .set({ undo_token_hash: hashToken(token) })
    .where('id', '=', id)
    .where('undone_at', 'is', null)
    .where('undo_expires_at', '>', new Date(now))
    .where((eb) =>
      eb.or([
        eb('confirmed_at', 'is', null),
        eb('confirmed_at', '>', new Date(now - afterConfirmHours * 3600_000)),
      ]),
    )
    .returning('id')
    .executeTakeFirst();
  return row ? token : null;
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
