// The account's active sessions (refresh families with a live token): listed with the device and the
// address they were last used from, and ended one by one or all but the current one. Ending a session
// (end-sessions.ts) revokes its refresh family and announces it: its access tokens are refused at once.
import { appendAudit, auditParty } from '../audit/audit.repo.js';
import type { SessionInfo } from '@omc/contracts';
import { notFound } from '@omc/service-kit';
import UAParser from 'ua-parser-js';
import type { AuthBase } from '../base.js';
import type { UserRow } from '../users/users.repo.js';
import { findActiveSession, listActiveSessions, liveSessionsBut } from './sessions.repo.js';
import { endOneSession, securityEvent } from './security-events.js';

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

export class ActiveSessionsService {
  constructor(private readonly base: AuthBase) {}

  async listSessions(userId: string, currentSessionId?: string): Promise<SessionInfo[]> {
    const rows = await listActiveSessions(this.base.deps.db, userId, this.base.deps.clock());
    return rows.map((row) => ({
      id: row.family_id,
      device: describeDevice(row.user_agent),
      ip: row.ip,
      createdAt: row.created_at.toISOString(),
      lastUsedAt: row.last_used_at.toISOString(),
      current: row.family_id === currentSessionId,
    }));
  }

  /**
   * Ends one of the account's own sessions (someone else's, or one already ended, is a 404): its refresh
   * family and its access tokens at once, and, since its holder may be a thief, every pending email change
   * and every mailed reset link.
   */
  async endSession(userId: string, sessionId: string): Promise<void> {
    const now = this.base.deps.clock();
    const session = await findActiveSession(this.base.deps.db, userId, sessionId, now);
    if (!session) throw notFound('No active session of yours has this id');
    await this.base.deps.db.transaction().execute((trx) => endOneSession(trx, userId, sessionId, now));
    this.base.relay.notify();
  }

  /**
   * Ends every session of the account but the current one, and every access token signed before, the
   * caller's too (a copy of it may be the reason): returns how many sessions ended and the caller's new
   * access token.
   */
  async endOtherSessions(
    user: UserRow,
    currentSessionId: string,
    ip?: string,
  ): Promise<{ ended: number; token: string }> {
    const now = this.base.deps.clock();
    const outcome = await this.base.deps.db.transaction().execute(async (trx) => {
      const ended = await liveSessionsBut(trx, user.id, currentSessionId);
      const version = await securityEvent(trx, user.id, now, { allBut: currentSessionId });
      await appendAudit(trx, {
        action: 'sessions.ended_everywhere',
        actor: auditParty(user),
        target: auditParty(user),
        detail: { ended: ended.length },
        ip,
      });
      return {
        ended: ended.length,
        token: this.base.signAccessToken({ ...user, security_version: version }, currentSessionId),
      };
    });
    this.base.relay.notify();
    return outcome;
  }
}
