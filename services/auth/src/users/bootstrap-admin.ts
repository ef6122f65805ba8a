// The first admin comes from BOOTSTRAP_ADMIN_* (there is no other way to get one). It is created once,
// on a database that never had one, and remembered: later starts never promote anyone, so whoever
// registers the name or email the admin moved away from stays a player, and an admin demoted on
// purpose stays demoted. Its password is only set at creation, so a changed password survives restarts.
import { randomUUID } from 'node:crypto';
import { DEFAULT_LANGUAGE } from '@omc/contracts';

import { enqueueRegistered } from '../events.js';
import type { AuthContext } from '../context.js';
import { hashPassword } from '../security/passwords.js';
import {
  bootstrapDone,
  findUserByEmail,
  findUserByUsername,
  insertUser,
  lockBootstrap,
  recordBootstrap,
} from './users.repo.js';

export type BootstrapOutcome = 'created' | 'present' | 'taken' | 'not configured';

export async function ensureBootstrapAdmin(ctx: AuthContext): Promise<BootstrapOutcome> {
  const admin = ctx.deps.config.bootstrapAdmin;
  if (!admin) return 'not configured';
  const passwordHash = await hashPassword(admin.password);
  const outcome = await ctx.deps.db.transaction().execute(async (trx) => {
    await lockBootstrap(trx);
    if (await bootstrapDone(trx)) return 'present' as const;
    // Never made here, yet the name or email is held: refuse to hand admin to that account.
    if ((await findUserByEmail(trx, admin.email)) ?? (await findUserByUsername(trx, admin.username))) {
      return 'taken' as const;
    }
    const user = await insertUser(trx, {
      id: randomUUID(),
      username: admin.username,
      email: admin.email,
      passwordHash,
      role: 'admin',
      preferredLanguage: DEFAULT_LANGUAGE,
    });
    await recordBootstrap(trx, user.id);
    await enqueueRegistered(trx, user);
    return 'created' as const;
  });
  ctx.relay.notify();
  return outcome;
}
