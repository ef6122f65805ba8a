import { makeEvent, ROLES_NEEDING_APPROVAL, SUBJECTS, type Role } from '@omc/contracts';
import { conflict, notFound } from '@omc/service-kit';
import type { Transaction } from 'kysely';
import { appendAudit } from '../audit/audit.repo.js';
import { enqueue } from '../events.js';
import type { AuthBase } from '../base.js';
import type { Database } from '../db/schema.js';
import { lockAdmins, lockUserByEmail, nextRoleVersion, updateUser } from '../users/users.repo.js';
import type { Actor } from './suspension.service.js';

export type RoleOutcome = { changed: false } | { changed: true; userId: string; roleVersion: number };

/**
 * The role change itself, in the caller's transaction (an approval carries out a grant in its own).
 * `detail` adds to the audit entry (the approval that allowed it).
 */
export async function applyRole(
  trx: Transaction<Database>,
  email: string,
  role: Role,
  actor: Actor,
  detail: Record<string, unknown>,
): Promise<RoleOutcome> {
  const admins = await lockAdmins(trx);
  const target = await lockUserByEmail(trx, email);
  if (!target) throw notFound('No user has this email');
  if (target.role === role) return { changed: false as const };
  if (target.role === 'admin' && admins.length <= 1)
    throw conflict('Cannot remove the last admin. Make another user admin first.');
  await updateUser(trx, target.id, { role });
  // The change's version for every consumer, also for the game's direct call: auth's own sequence.
  const roleVersion = await nextRoleVersion(trx, target.id);
  await appendAudit(trx, {
    action: 'role.changed',
    actor: { id: actor.id, label: actor.username },
    target: { id: target.id, label: target.username },
    detail: { from: target.role, to: role, ...detail },
    ip: actor.ip,
  });
  const event = makeEvent(SUBJECTS.userRoleChanged, {
    userId: target.id,
    role,
    previousRole: target.role,
    roleVersion,
    changedBy: actor.id,
  });
  await enqueue(trx, event);
  return { changed: true as const, userId: target.id, roleVersion };
}

export class AdminService {
  constructor(private readonly base: AuthBase) {}

  /**
   * Sets a user's role to standard, one admin's act. Demoting the last admin is refused, also when two
   * admins demote each other at once. A change is written to the audit log, naming the admin who made it,
   * in the same transaction. Superuser and admin are granted only through a request (approvals.service.ts).
   */
  async updateRole(email: string, role: Role, actor: Actor): Promise<RoleOutcome> {
    if (ROLES_NEEDING_APPROVAL.includes(role))
      throw new Error(`a grant of ${role} goes through a two-admin request (openApproval), not updateRole`);
    const result = await this.base.deps.db
      .transaction()
      .execute(async (trx) => applyRole(trx, email, role, actor, {}));
    if (result.changed) this.base.relay.notify();
    return result;
  }
}
