// Suspending and restoring an account. A suspension ends every session at once (the security event of
// sessions/security-events.ts: the version in every access token goes stale, every refresh family is
// revoked), refuses sign-in with the operator's reason, and so refuses every money path (payments asks
// /internal/account, which answers 401 with that reason). Both are written to the audit log in the
// same transaction.
import { conflict, notFound } from '@omc/service-kit';
import type { AuthContext } from '../context.js';
import { appendAudit } from '../audit/audit.repo.js';
import { securityEvent } from '../sessions/security-events.js';
import { lockUserById, setSuspension, type UserRow } from '../users/users.repo.js';

export interface Actor {
  id: string;
  username: string;
  ip: string;
}

export interface SuspensionOutcome {
  changed: boolean;
  user: UserRow;
}

export async function suspendUser(
  ctx: AuthContext,
  actor: Actor,
  targetId: string,
  reason: string,
): Promise<SuspensionOutcome> {
  return ctx.deps.db.transaction().execute(async (trx) => {
    const target = await lockUserById(trx, targetId);
    if (!target) throw notFound('No user has this id');
    if (target.id === actor.id) throw conflict('You cannot suspend your own account');
    // An admin keeps every power until demoted; demote first, so the last admin can never be locked out.
    if (target.role === 'admin') throw conflict('Admins cannot be suspended: change their role first');
    if (target.suspended_at) return { changed: false, user: target };
    const now = ctx.deps.clock();
    const user = await setSuspension(trx, target.id, { at: new Date(now), reason, by: actor.id });
    await securityEvent(trx, target.id, now, { all: true });
    await appendAudit(trx, {
      action: 'user.suspended',
      actor: { id: actor.id, label: actor.username },
      target: { id: target.id, label: target.username },
      detail: { reason },
      ip: actor.ip,
    });
    return { changed: true, user: user! };
  });
}

export async function restoreUser(
  ctx: AuthContext,
  actor: Actor,
  targetId: string,
  reason: string,
): Promise<SuspensionOutcome> {
  return ctx.deps.db.transaction().execute(async (trx) => {
    const target = await lockUserById(trx, targetId);
    if (!target) throw notFound('No user has this id');
    if (!target.suspended_at) return { changed: false, user: target };
    const user = await setSuspension(trx, target.id, null);
    await appendAudit(trx, {
      action: 'user.restored',
      actor: { id: actor.id, label: actor.username },
      target: { id: target.id, label: target.username },
      detail: { reason, suspendedReason: target.suspended_reason },
      ip: actor.ip,
    });
    return { changed: true, user: user! };
  });
}
