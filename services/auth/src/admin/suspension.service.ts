// Suspending and restoring an account. A suspension ends every session at once (the security event of
// sessions/security-events.ts: the version in every access token goes stale, every refresh family is
// revoked), refuses sign-in with the operator's reason, and so refuses every money path (payments asks
// /internal/account, which answers 401 with that reason). Both are written to the audit log in the
// same transaction, with the auth.user.suspension_changed.v1 event (outbox) that the game applies to the
// click path. Both raise the security version, which orders those events.
import { makeEvent, SUBJECTS } from '@omc/contracts';
import { conflict, notFound } from '@omc/service-kit';
import type { Transaction } from 'kysely';
import type { AuthContext } from '../context.js';
import { appendAudit } from '../audit/audit.repo.js';
import type { Database } from '../db/schema.js';
import { enqueue } from '../events.js';
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
  /** The account's security version after the change: the game applies changes in its order. */
  securityVersion: number;
}

/** Tells the other services (the game: clicks) of the change, after commit, through the outbox. */
async function announce(
  trx: Transaction<Database>,
  userId: string,
  change: { suspended: boolean; reason: string | null; securityVersion: number },
): Promise<void> {
  await enqueue(trx, makeEvent(SUBJECTS.userSuspensionChanged, { userId, ...change }));
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
    if (target.suspended_at)
      return { changed: false, user: target, securityVersion: target.security_version };
    const now = ctx.deps.clock();
    const user = await setSuspension(trx, target.id, { at: new Date(now), reason, by: actor.id });
    const securityVersion = await securityEvent(trx, target.id, now, { all: true });
    await announce(trx, target.id, { suspended: true, reason, securityVersion });
    await appendAudit(trx, {
      action: 'user.suspended',
      actor: { id: actor.id, label: actor.username },
      target: { id: target.id, label: target.username },
      detail: { reason },
      ip: actor.ip,
    });
    return { changed: true, user: user!, securityVersion };
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
    if (!target.suspended_at)
      return { changed: false, user: target, securityVersion: target.security_version };
    const user = await setSuspension(trx, target.id, null);
    // The suspension's sessions stay ended (no token of them can come back): the raise only orders the
    // restore after the suspension for the services that apply both.
    const raised = await trx
      .updateTable('users')
      .set((eb) => ({ security_version: eb('security_version', '+', 1) }))
      .where('id', '=', target.id)
      .returning('security_version')
      .executeTakeFirstOrThrow();
    const securityVersion = raised.security_version;
    await announce(trx, target.id, { suspended: false, reason: null, securityVersion });
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
