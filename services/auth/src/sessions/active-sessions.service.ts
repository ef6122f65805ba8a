// The account's active sessions (refresh families with a live token): listed with the device and the
// address they were last used from, and ended one by one or all but the current one. Ending a session
// revokes its refresh family at once; an access token already handed out lives out its 15 minutes.
import type { SessionInfo } from '@omc/contracts';
import { notFound } from '@omc/service-kit';
import UAParser from 'ua-parser-js';
import type { AuthContext } from '../context.js';
import { revokeFamily } from './refresh-tokens.js';

/** "Firefox 128 on Linux", "Mobile Safari on iOS (iPhone)"; "Unknown device" when nothing is known. */
export function describeDevice(userAgent: string | null | undefined): string {
  if (!userAgent) return 'Unknown device';
  const ua = new UAParser(userAgent).getResult();
  const browser = [ua.browser.name, ua.browser.major].filter(Boolean).join(' ');
  const os = ua.os.name ?? '';
  const model = ua.device.model ? ` (${ua.device.model})` : '';
  if (!browser && !os) return userAgent.slice(0, 60);
  return `${browser || 'Unknown browser'}${os ? ` on ${os}` : ''}${model}`;
}

function activeSessions(ctx: AuthContext, userId: string, now: number) {
  return ctx.deps.db
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

export async function listSessions(
  ctx: AuthContext,
  userId: string,
  currentSessionId?: string,
): Promise<SessionInfo[]> {
  const rows = await activeSessions(ctx, userId, ctx.deps.clock()).execute();
  return rows.map((row) => ({
    id: row.family_id,
    device: describeDevice(row.user_agent),
    ip: row.ip,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at.toISOString(),
    current: row.family_id === currentSessionId,
  }));
}

/** Ends one of the account's own sessions; someone else's, or one already ended, is a 404. */
export async function endSession(ctx: AuthContext, userId: string, sessionId: string): Promise<void> {
  const now = ctx.deps.clock();
  const session = await activeSessions(ctx, userId, now)
    .where('family_id', '=', sessionId)
    .executeTakeFirst();
  if (!session) throw notFound('No active session of yours has this id');
  await revokeFamily(ctx.deps.db, sessionId, now);
}

/** Ends every session of the account but the current one; returns how many were ended. */
export async function endOtherSessions(
  ctx: AuthContext,
  userId: string,
  currentSessionId?: string,
): Promise<number> {
  const now = ctx.deps.clock();
  const result = await ctx.deps.db
    .updateTable('refresh_tokens')
    .set({ revoked_at: new Date(now) })
    .where('user_id', '=', userId)
    .where('revoked_at', 'is', null)
    .$if(Boolean(currentSessionId), (qb) => qb.where('family_id', '!=', currentSessionId!))
    .returning('family_id')
    .execute();
  return new Set(result.map((r) => r.family_id)).size;
}
