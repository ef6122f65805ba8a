// The rows a session is made of (its `sessions` row and its refresh family), as ending and rotation touch
// them. Both take the owner's row lock first, so an ending and a rotation of the same account run one
// after the other, never interleaved.
import type { Selectable, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

/** Which sessions of an account end: every one, every one but the caller's, or one. */
export type SessionsToEnd = { all: true } | { allBut: string } | { only: string };

/**
 * Takes the account's row lock until the transaction ends. FOR NO KEY UPDATE: it excludes another ending
 * or rotation of the account, but not the inserts that only reference the row. Returns the password hash
 * and suspension as they stand under the lock (undefined when the account is gone).
 */
export async function lockSessionsOf(
  trx: Transaction<Database>,
  userId: string,
): Promise<
  Pick<Selectable<Database['users']>, 'password_hash' | 'suspended_at' | 'suspended_reason'> | undefined
> {
  return trx
    .selectFrom('users')
    .select(['password_hash', 'suspended_at', 'suspended_reason'])
    .where('id', '=', userId)
    .forNoKeyUpdate()
    .executeTakeFirst();
}

/** Revokes every live refresh token of the sessions named; returns the sessions that had one. */
export async function revokeSessions(
  trx: Transaction<Database>,
  userId: string,
  which: SessionsToEnd,
  now: number,
): Promise<string[]> {
  const rows = await trx
    .updateTable('refresh_tokens')
    .set({ revoked_at: new Date(now) })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .$if('allBut' in which, (qb) => qb.where('family_id', '!=', (which as { allBut: string }).allBut))
    .$if('only' in which, (qb) => qb.where('family_id', '=', (which as { only: string }).only))
    .returning('family_id')
    .execute();
  return [...new Set(rows.map((row) => row.family_id))];
}
