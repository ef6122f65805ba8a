// The only code that reads and writes the rows a session is made of: its `sessions` row and its refresh
// family (`refresh_tokens`). Ending and rotation both take the owner's row lock first, so an ending and a
// rotation of the same account run one after the other, never interleaved.
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;
export type SessionRow = Selectable<Database['sessions']>;

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

/** Starts a session: its row, with the client's address and user agent. */
export async function insertSession(
  db: Db,
  session: { familyId: string; userId: string; userAgent: string | null; ip: string | null; now: number },
): Promise<void> {
  await db
    .insertInto('sessions')
    .values({
      family_id: session.familyId,
      user_id: session.userId,
      user_agent: session.userAgent,
      ip: session.ip,
      created_at: new Date(session.now),
      last_used_at: new Date(session.now),
    })
    .execute();
}

export async function insertRefreshToken(
  db: Db,
  token: { id: string; userId: string; familyId: string; tokenHash: string; expiresAt: Date },
): Promise<void> {
  await db
    .insertInto('refresh_tokens')
    .values({
      id: token.id,
      user_id: token.userId,
      family_id: token.familyId,
      token_hash: token.tokenHash,
      expires_at: token.expiresAt,
    })
    .execute();
}

/** The account a refresh token (by its hash) belongs to, without a lock. */
export function findRefreshTokenOwner(db: Db, tokenHash: string): Promise<{ user_id: string } | undefined> {
  return db
    .selectFrom('refresh_tokens')
    .select('user_id')
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** The account and session a refresh token (by its hash) belongs to, without a lock. */
export function findRefreshTokenSession(
  db: Db,
  tokenHash: string,
): Promise<{ user_id: string; family_id: string } | undefined> {
  return db
    .selectFrom('refresh_tokens')
    .select(['user_id', 'family_id'])
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
}

/** The refresh token (by its hash), its row locked until the transaction ends. */
export function lockRefreshToken(trx: Transaction<Database>, tokenHash: string) {
  return trx
    .selectFrom('refresh_tokens')
    .selectAll()
    .where('token_hash', '=', tokenHash)
    .forUpdate()
    .executeTakeFirst();
}

export async function markRotated(trx: Transaction<Database>, id: string, now: number): Promise<void> {
  await trx
    .updateTable('refresh_tokens')
    .set({ rotated_at: new Date(now) })
    .where('id', '=', id)
    .execute();
}

/** Records the session's last use, and the address it came from when known. */
export async function touchSession(
  trx: Transaction<Database>,
  familyId: string,
  now: number,
  ip?: string | null,
): Promise<void> {
  await trx
    .updateTable('sessions')
    .set({ last_used_at: new Date(now), ...(ip ? { ip } : {}) })
    .where('family_id', '=', familyId)
    .execute();
}

export async function deleteRefreshTokensExpiredBefore(db: Db, before: Date): Promise<void> {
  await db.deleteFrom('refresh_tokens').where('expires_at', '<', before).execute();
}

/** Deletes the sessions left without a refresh token. */
export async function deleteSessionsWithoutTokens(db: Db): Promise<void> {
  await db
    .deleteFrom('sessions')
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('refresh_tokens')
            .select('id')
            .whereRef('refresh_tokens.family_id', '=', 'sessions.family_id'),
        ),
      ),
    )
    .execute();
}

/** The account's sessions with a live refresh token (not revoked, rotated or expired), latest used first. */
function activeSessions(db: Db, userId: string, now: number) {
  return db
    .selectFrom('sessions')
    .selectAll()
    .where('user_id', '=', userId)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('refresh_tokens')
          .select('id')
          .whereRef('refresh_tokens.family_id', '=', 'sessions.family_id')
          .where('revoked_at', 'is', null)
          .where('rotated_at', 'is', null)
          .where('expires_at', '>', new Date(now)),
      ),
    )
    .orderBy('last_used_at', 'desc');
}

export function listActiveSessions(db: Db, userId: string, now: number): Promise<SessionRow[]> {
  return activeSessions(db, userId, now).execute();
}

/** One of the account's active sessions, or undefined (someone else's, ended, or no such session). */
export function findActiveSession(
  db: Db,
  userId: string,
  familyId: string,
  now: number,
): Promise<SessionRow | undefined> {
  return activeSessions(db, userId, now).where('family_id', '=', familyId).executeTakeFirst();
}

/** The account's sessions with a token not revoked, but the one named. */
export function liveSessionsBut(
  trx: Transaction<Database>,
  userId: string,
  familyId: string,
): Promise<{ family_id: string }[]> {
  return trx
    .selectFrom('refresh_tokens')
    .select('family_id')
    .distinct()
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .where('family_id', '!=', familyId)
    .execute();
}

/**
 * The account's row with what the access token's session says: whether the session has a refresh token
 * not revoked, and when it signed in. One query, so the check of a signed-in request costs one round trip.
 */
export function findAccountWithSession(db: Db, userId: string, sid: string) {
  return db
    .selectFrom('users')
    .selectAll('users')
    .select((eb) => [
      eb
        .exists(
          eb
            .selectFrom('refresh_tokens')
            .select(sql<number>`1`.as('one'))
            .where('refresh_tokens.family_id', '=', sid)
            .whereRef('refresh_tokens.user_id', '=', 'users.id')
            .where('refresh_tokens.revoked_at', 'is', null),
        )
        .as('session_live'),
      eb
        .selectFrom('sessions')
        .select('sessions.created_at')
        .where('sessions.family_id', '=', sid)
        .as('signed_in_at'),
    ])
    .where('users.id', '=', userId)
    .executeTakeFirst();
}
