// Auth's call on a role change, before updateRole answers, so the user's very next click already has the
// new role (the role event that follows changes nothing). Not reachable through the gateway (no public
// prefix is /internal) and only auth may call it (NetworkPolicies); auth forwards the admin's own token.
import { InternalRoleApplied, InternalRoleChange } from '@omc/contracts';
import { conflict, requireRole, requireUser } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Kysely } from 'kysely';
import { z } from 'zod';
import type { Database } from '../db/schema.js';
import type { GameEngine } from '../engine/game-engine.js';
import { findUsers, updateUser } from '../engine/game.repo.js';

export async function roleRoutes(
  scope: FastifyInstance,
  db: Kysely<Database>,
  engine: GameEngine,
): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.put(
    '/internal/users/:userId/role',
    {
      onRequest: async (request) => requireRole(await requireUser(request), 'admin'),
      schema: {
        params: z.object({ userId: z.uuid() }),
        body: InternalRoleChange,
        response: { 200: InternalRoleApplied },
      },
    },
    async (request) => {
      const { userId } = request.params;
      const { role, changedAt } = request.body;
      const known = await db.transaction().execute(async (trx) => {
        if (!(await findUsers(trx, [userId])).has(userId)) return false;
        // Applied only when newer than the role the game holds (idempotent; the event is then a no-op).
        await updateUser(trx, userId, { role }, new Date(changedAt));
        return true;
      });
      if (!known) throw conflict('The game does not know this user yet; the role arrives with its events');
      await engine.syncUser(userId);
      const user = (await findUsers(db, [userId])).get(userId);
      return { role: user?.role ?? role };
    },
  );
}
