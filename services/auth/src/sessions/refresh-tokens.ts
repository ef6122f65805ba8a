// Refresh tokens: opaque random strings, stored only as their sha256. Each login starts a family (a
// session); every use rotates the token within its family; a rotated token used again (outside a short
// grace for racing tabs) means it was copied, so the session is ended (end-sessions.ts).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { endSessions } from './end-sessions.js';
import { lockSessionsOf } from './sessions.repo.js';

type Db = Kysely<Database> | Transaction<Database>;

export const REFRESH_COOKIE = 'omc_refresh';
/** The cookie goes only to the refresh route and the logout route beneath it. */
export const REFRESH_COOKIE_PATH = '/api/user/refresh';

export const hashRefreshToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export interface RefreshSettings {
  ttlSeconds: number;
  reuseGraceMs: number;
}

/** Where and how a session signed in: listed to its owner by `GET /api/user/sessions`. */
export interface ClientInfo {
  ip?: string | null;
  userAgent?: string | null;
}

/**
 * Issues a refresh token. Without a family, starts a new session (a new family, recorded with the
 * client's address and user agent); with one, continues that session.
 */
export async function issueRefreshToken(
  db: Db,
  userId: string,
  now: number,
  settings: RefreshSettings,
  familyId?: string,
  client: ClientInfo = {},
): Promise<{ token: string; familyId: string }> {
  const family = familyId ?? randomUUID();
  if (!familyId) {
    await db
      .insertInto('sessions')
      .values({
        family_id: family,
        user_id: userId,
        user_agent: client.userAgent?.slice(0, 500) ?? null,
        ip: client.ip ?? null,
        created_at: new Date(now),
        last_used_at: new Date(now),
      })
      .execute();
  }
  const token = randomBytes(32).toString('base64url');
  await db
    .insertInto('refresh_tokens')
    .values({
      id: randomUUID(),
      user_id: userId,
      family_id: family,
      token_hash: hashRefreshToken(token),
      expires_at: new Date(now + settings.ttlSeconds * 1000),
    })
    .execute();
  return { token, familyId: family };
}

export type RotationResult =
  | { kind: 'rotated'; userId: string; familyId: string; token: string }
  /** A rotated token presented again within the grace: a new access token, no new refresh token. */
  | { kind: 'grace'; userId: string; familyId: string }
  | { kind: 'reused' }
  /** `endedFor`: the account whose session was ended (revoked), so a suspension can be told. */
  | { kind: 'invalid'; endedFor?: string };

export async function rotateRefreshToken(
  db: Kysely<Database>,
  token: string,
  now: number,
  settings: RefreshSettings,
  client: ClientInfo = {},
): Promise<RotationResult> {
  const tokenHash = hashRefreshToken(token);
  const owner = await db
    .selectFrom('refresh_tokens')
    .select('user_id')
    .where('token_hash', '=', tokenHash)
    .executeTakeFirst();
  if (!owner) return { kind: 'invalid' };
  return db.transaction().execute(async (trx) => {
    // The lock an ending takes: a session ended meanwhile is seen ended below, and an ending that comes
    // after waits for this rotation and ends its new token too.
    await lockSessionsOf(trx, owner.user_id);
    const row = await trx
      .selectFrom('refresh_tokens')
      .selectAll()
      .where('token_hash', '=', tokenHash)
      .forUpdate()
      .executeTakeFirst();
    if (row?.revoked_at) return { kind: 'invalid', endedFor: row.user_id } as const;
    if (!row || row.expires_at.getTime() <= now) return { kind: 'invalid' } as const;
    if (row.rotated_at) {
      if (now - row.rotated_at.getTime() <= settings.reuseGraceMs)
        return { kind: 'grace', userId: row.user_id, familyId: row.family_id } as const;
      await endSessions(trx, row.user_id, { only: row.family_id }, now);
      return { kind: 'reused' } as const;
    }
    await trx
      .updateTable('refresh_tokens')
      .set({ rotated_at: new Date(now) })
      .where('id', '=', row.id)
      .execute();
    const next = await issueRefreshToken(trx, row.user_id, now, settings, row.family_id);
    await trx
      .updateTable('sessions')
      .set({ last_used_at: new Date(now), ...(client.ip ? { ip: client.ip } : {}) })
      .where('family_id', '=', row.family_id)
      .execute();
    return { kind: 'rotated', userId: row.user_id, familyId: row.family_id, token: next.token } as const;
  });
}

/** Ends the session of the given token (logout), if it is one of ours. */
export async function endSessionOfToken(db: Kysely<Database>, token: string, now: number): Promise<boolean> {
  const row = await db
    .selectFrom('refresh_tokens')
    .select(['user_id', 'family_id'])
    .where('token_hash', '=', hashRefreshToken(token))
    .executeTakeFirst();
  if (!row) return false;
  const ended = await db
    .transaction()
    .execute((trx) => endSessions(trx, row.user_id, { only: row.family_id }, now));
  return ended.length > 0;
}

/** Deletes tokens that expired more than a day ago, and the sessions left with none. */
export async function purgeExpiredRefreshTokens(db: Db, now: number): Promise<void> {
  await db
    .deleteFrom('refresh_tokens')
    .where('expires_at', '<', new Date(now - 24 * 3600_000))
    .execute();
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
