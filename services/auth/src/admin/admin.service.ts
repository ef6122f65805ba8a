import { makeEvent, SUBJECTS, type Role } from '@omc/contracts';
import { conflict, notFound } from '@omc/service-kit';
import { enqueue } from '../events.js';
import type { AuthContext } from '../context.js';
import { lockAdmins, lockUserByEmail, updateUser } from '../users/users.repo.js';

/** Sets a user's role. Demoting the last admin is refused, also when two admins demote each other at once. */
export async function updateRole(ctx: AuthContext, email: string, role: Role): Promise<{ changed: boolean }> {
  const result = await ctx.deps.db.transaction().execute(async (trx) => {
    const admins = await lockAdmins(trx);
    const target = await lockUserByEmail(trx, email);
    if (!target) throw notFound('No user has this email');
    if (target.role === role) return { changed: false };
    if (target.role === 'admin' && admins.length <= 1)
      throw conflict('Cannot remove the last admin. Make another user admin first.');
    await updateUser(trx, target.id, { role });
    await enqueue(
      trx,
      makeEvent(SUBJECTS.userRoleChanged, { userId: target.id, role, previousRole: target.role }),
    );
    return { changed: true };
  });
  if (result.changed) ctx.relay.nudge();
  return result;
}
