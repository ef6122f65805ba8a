// The first admin comes from BOOTSTRAP_ADMIN_* (there is no other way to get one), ensured at every
// start: created when missing, promoted back to admin when it is not. Its password is only set when
// the account is created, so a password changed through the profile survives restarts. Game and
// payments learn about it from the same events as about any user.
import { randomUUID } from 'node:crypto';
import { DEFAULT_LANGUAGE, makeEvent, SUBJECTS } from '@omc/contracts';

import { sql } from 'kysely';
import { enqueue } from '../events.js';
import type { AuthContext } from '../context.js';
import { hashPassword } from '../security/passwords.js';
import { findUserByEmail, findUserByUsername, insertUser, updateUser } from './users.repo.js';

export async function ensureBootstrapAdmin(
  ctx: AuthContext,
): Promise<'created' | 'promoted' | 'present' | 'not configured'> {
  const admin = ctx.deps.config.bootstrapAdmin;
  if (!admin) return 'not configured';
  const passwordHash = await hashPassword(admin.password);
  const outcome = await ctx.deps.db.transaction().execute(async (trx) => {
    // Replicas starting together: one at a time.
    await sql`select pg_advisory_xact_lock(hashtext('auth.bootstrap_admin'))`.execute(trx);
    const existing =
      (await findUserByEmail(trx, admin.email)) ?? (await findUserByUsername(trx, admin.username));
    if (existing) {
      if (existing.role === 'admin') return 'present' as const;
      await updateUser(trx, existing.id, { role: 'admin' });
      await enqueue(
        trx,
        makeEvent(SUBJECTS.userRoleChanged, {
          userId: existing.id,
          role: 'admin',
          previousRole: existing.role,
        }),
      );
      return 'promoted' as const;
    }
    const user = await insertUser(trx, {
      id: randomUUID(),
      username: admin.username,
      email: admin.email,
      passwordHash,
      role: 'admin',
      preferredLanguage: DEFAULT_LANGUAGE,
    });
    await enqueue(
      trx,
      makeEvent(SUBJECTS.userRegistered, {
        userId: user.id,
        username: user.username,
        email: user.email,
        role: user.role,
        preferredLanguage: user.preferred_language,
      }),
    );
    return 'created' as const;
  });
  ctx.relay.nudge();
  return outcome;
}
