// Auth's call on a role change, before updateRole answers, so the user's very next click already has the
// new role (the role event that follows changes nothing). Not reachable through the gateway (no public
// prefix is /internal) and only auth may call it (NetworkPolicies); auth forwards the admin's own token.
import { InternalRoleApplied, InternalRoleChange, type Role } from '@omc/contracts';
import { authenticate, backoff, conflict, requireRole, RETRY_POLICIES } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../db/schema.js';
import type { GameContext } from '../context.js';
import { findUsers, updateUser } from '../db/players.repo.js';

/**
 * A user promoted right after signing up may reach this before the sign-up event has: the call waits
 * this long for it (well within auth's own timeout for the call), then answers 409.
 */
const UNKNOWN_USER_WAIT_MS = 500;

async function applyRole(
  db: Kysely<Database>,
  userId: string,
  role: Role,
  roleVersion: number,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await findUsers(trx, [userId])).has(userId)) return false;
    // Applied only when auth's version is higher than the one the game holds (idempotent; the event is
    // then a no-op). The caller sends no clock: the time recorded is the game's own.
    await updateUser(trx, userId, { role, roleVersion }, new Date());
    return true;
  });
}

export async function roleRoutes(scope: FastifyInstance, { deps, engine }: GameContext): Promise<void> {
  const { db } = deps;
  scope.addHook('onRequest', authenticate);
  scope.addHook('onRequest', requireRole('admin'));
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.put(
    '/internal/users/:userId/role',
    {
      schema: {
        params: z.object({ userId: z.uuid() }),
        body: InternalRoleChange,
        response: { 200: InternalRoleApplied },
      },
    },
    async (request) => {
      const { userId } = request.params;
      const { role, roleVersion } = request.body;
      const deadline = Date.now() + UNKNOWN_USER_WAIT_MS;
      let known = await applyRole(db, userId, role, roleVersion);
      for (let attempt = 0; !known && Date.now() < deadline; attempt += 1) {
        await backoff(RETRY_POLICIES.unknownUser, attempt);
        known = await applyRole(db, userId, role, roleVersion);
      }
      if (!known) throw conflict('The game does not know this user yet; the role arrives with its events');
      await engine.syncUser(userId);
      const user = (await findUsers(db, [userId])).get(userId);
      return { role: user?.role ?? role };
    },
  );
}
