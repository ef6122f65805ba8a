// The only code that reads and writes password_reset_tokens. Tokens are random, stored as their sha256.
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database, PasswordResetTokensTable } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;
export type ResetTokenRow = Selectable<PasswordResetTokensTable>;

export const hashResetToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export async function createResetToken(db: Db, userId: string, expiresAt: number): Promise<string> {
  const token = randomBytes(32).toString('base64url');
  await db
    .insertInto('password_reset_tokens')
    .values({
      id: randomUUID(),
      user_id: userId,
      token_hash: hashResetToken(token),
      expires_at: new Date(expiresAt),
    })
    .execute();
  return token;
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
