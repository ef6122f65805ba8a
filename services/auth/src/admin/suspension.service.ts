// Suspending and restoring an account. A suspension ends every session at once (the security event of
// sessions/security-events.ts: the version in every access token goes stale, every session is ended and
// announced through sessions/end-sessions.ts, serialized with any refresh in flight), refuses sign-in with the operator's reason, and so refuses every money path (payments asks
// /internal/account, which answers 401 with that reason). Both are written to the audit log in the
// same transaction. Both raise the security version, whose auth.user.access_changed.v1 event (outbox)
// the game applies to the click path.
import { conflict, notFound } from '@omc/service-kit';
import type { AuthBase } from '../base.js';
import { appendAudit } from '../audit/audit.repo.js';
import { raiseSecurityVersion, securityEvent } from '../sessions/security-events.js';
import { lockUserById, setSuspension, type UserRow } from '../users/users.repo.js';

export interface Actor {
  id: string;
  username: string;
  ip: string;
}

export interface SuspensionOutcome {
  changed: boolean;
  user: UserRow;
  /** The account's security version after the change: the game applies changes in its order. */
  securityVersion: number;
}

export class SuspensionService {
  constructor(private readonly base: AuthBase) {}

  async suspendUser(actor: Actor, targetId: string, reason: string): Promise<SuspensionOutcome> {
    const outcome = await this.base.deps.db.transaction().execute(async (trx) => {
      const target = await lockUserById(trx, targetId);
      if (!target) throw notFound('No user has this id');
      if (target.id === actor.id) throw conflict('You cannot suspend your own account');
      // An admin keeps every power until demoted; demote first, so the last admin can never be locked out.
      if (target.role === 'admin') throw conflict('Admins cannot be suspended: change their role first');
      if (target.suspended_at)
        return { changed: false, user: target, securityVersion: target.security_version };
      const now = this.base.deps.clock();
      const user = await setSuspension(trx, target.id, { at: new Date(now), reason, by: actor.id });
      // The raise announces the suspension (the account's access state at the new version).
      const securityVersion = await securityEvent(trx, target.id, now, { all: true });
      await appendAudit(trx, {
        action: 'user.suspended',
        actor: { id: actor.id, label: actor.username },
        target: { id: target.id, label: target.username },
        detail: { reason },
        ip: actor.ip,
      });
      return { changed: true, user: user!, securityVersion };
    });
    if (outcome.changed) this.base.relay.notify();
    return outcome;
  }

  async restoreUser(actor: Actor, targetId: string, reason: string): Promise<SuspensionOutcome> {
    return this.base.deps.db.transaction().execute(async (trx) => {
      const target = await lockUserById(trx, targetId);
      if (!target) throw notFound('No user has this id');
      if (!target.suspended_at)
        return { changed: false, user: target, securityVersion: target.security_version };
      const user = await setSuspension(trx, target.id, null);
      // The suspension's sessions stay ended: it ended them under the lock every refresh takes, so no
      // refresh in flight kept a token of them, and a restore revives none. The raise orders the restore
      // after the suspension for the services that apply both, and announces it.
      const raised = await raiseSecurityVersion(trx, target.id);
      const securityVersion = raised!.security_version;
      await appendAudit(trx, {
        action: 'user.restored',
        actor: { id: actor.id, label: actor.username },
        target: { id: target.id, label: target.username },
        detail: { reason, suspendedReason: target.suspended_reason },
        ip: actor.ip,
      });
      return { changed: true, user: { ...user!, security_version: securityVersion }, securityVersion };
    });
  }
}
