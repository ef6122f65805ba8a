// Refresh tokens: opaque random strings, stored only as their sha256. Each login starts a family (a
// session); every use rotates the token within its family; a rotated token used again (outside a short
// grace for racing tabs) means it was copied, so the session is ended (end-sessions.ts).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { endSession, endSessions } from './end-sessions.js';
import {
  deleteRefreshTokensExpiredBefore,
  deleteSessionsWithoutTokens,
  findRefreshTokenOwner,
  findRefreshTokenSession,
  insertRefreshToken,
  insertSession,
  lockRefreshToken,
  lockSessionsOf,
  markRotated,
  touchSession,
} from './sessions.repo.js';

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
    await insertSession(db, {
      familyId: family,
      userId,
      userAgent: client.userAgent?.slice(0, 500) ?? null,
      ip: client.ip ?? null,
      now,
    });
  }
  const token = randomBytes(32).toString('base64url');
  await insertRefreshToken(db, {
    id: randomUUID(),
    userId,
    familyId: family,
    tokenHash: hashRefreshToken(token),
    expiresAt: new Date(now + settings.ttlSeconds * 1000),
  });
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
  const owner = await findRefreshTokenOwner(db, tokenHash);
  if (!owner) return { kind: 'invalid' };
  return db.transaction().execute(async (trx) => {
    // The lock an ending takes: a session ended meanwhile is seen ended below, and an ending that comes
    // after waits for this rotation and ends its new token too.
    await lockSessionsOf(trx, owner.user_id);
    const row = await lockRefreshToken(trx, tokenHash);
    if (row?.revoked_at) return { kind: 'invalid', endedFor: row.user_id } as const;
    if (!row || row.expires_at.getTime() <= now) return { kind: 'invalid' } as const;
    if (row.rotated_at) {
      if (now - row.rotated_at.getTime() <= settings.reuseGraceMs)
        return { kind: 'grace', userId: row.user_id, familyId: row.family_id } as const;
      await endSessions(trx, row.user_id, { only: row.family_id }, now);
      return { kind: 'reused' } as const;
    }
    await markRotated(trx, row.id, now);
    const next = await issueRefreshToken(trx, row.user_id, now, settings, row.family_id);
    await touchSession(trx, row.family_id, now, client.ip);
    return { kind: 'rotated', userId: row.user_id, familyId: row.family_id, token: next.token } as const;
  });
}

/** Ends the session of the given token (logout), if it is one of ours. */
export async function endSessionOfToken(db: Kysely<Database>, token: string, now: number): Promise<boolean> {
  const row = await findRefreshTokenSession(db, hashRefreshToken(token));
  if (!row) return false;
  return endSession(db, row.user_id, row.family_id, now);
}

/** Deletes tokens that expired more than a day ago, and the sessions left with none. */
export async function purgeExpiredRefreshTokens(db: Db, now: number): Promise<void> {
  await deleteRefreshTokensExpiredBefore(db, new Date(now - 24 * 3600_000));
  await deleteSessionsWithoutTokens(db);
}
