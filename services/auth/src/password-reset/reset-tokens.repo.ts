// The only code that reads and writes password_reset_tokens. A request is stored without a token; the
// mailer mints one when it sends the mail (random, stored as its sha256 only).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, PasswordResetTokensTable } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;
export type ResetTokenRow = Selectable<PasswordResetTokensTable>;

export const hashResetToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/** Stores a reset request; its link's token is minted when the mail is sent (mintResetToken). */
export async function createResetRequest(db: Db, userId: string, expiresAt: number): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('password_reset_tokens')
    .values({ id, user_id: userId, token_hash: null, expires_at: new Date(expiresAt) })
    .execute();
  return id;
}

/**
 * A fresh token for the request's link, its hash replacing any minted before (a link mailed earlier stops
 * working); null when the request is used, spent by a security event, expired or gone: never minted again.
 */
export async function mintResetToken(db: Db, id: string, now: number): Promise<string | null> {
  const token = randomBytes(32).toString('base64url');
  const row = await db
    .updateTable('password_reset_tokens')
    .set({ token_hash: hashResetToken(token) })
    .where('id', '=', id)
    .where('used_at', 'is', null)
    .where('expires_at', '>', new Date(now))
    .returning('id')
    .executeTakeFirst();
  return row ? token : null;
}

export function findResetToken(db: Db, token: string): Promise<ResetTokenRow | undefined> {
  return db
    .selectFrom('password_reset_tokens')
    .selectAll()
    .where('token_hash', '=', hashResetToken(token))
    .executeTakeFirst();
}

export function lockResetToken(trx: Transaction<Database>, id: string): Promise<ResetTokenRow | undefined> {
  return trx
    .selectFrom('password_reset_tokens')
    .selectAll()
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
}

/** Spends every unused token of the account: one reset ends all the links mailed before it. */
export async function useAllResetTokens(db: Db, userId: string, now: number): Promise<void> {
  await db
    .updateTable('password_reset_tokens')
    .set({ used_at: new Date(now) })
    .where('user_id', '=', userId)
    .where('used_at', 'is', null)
    .execute();
}

export async function purgeOldResetTokens(db: Db, now: number): Promise<void> {
  await db
    .deleteFrom('password_reset_tokens')
    .where('expires_at', '<', new Date(now - 24 * 3600_000))
    .execute();
}
