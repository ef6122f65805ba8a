// Auth's call on a role change, before updateRole answers, so the user's very next click already has the
// new role (the role event that follows changes nothing). Not reachable through the gateway (no public
// prefix is /internal) and only auth may call it (NetworkPolicies); auth forwards the admin's own token.
import { InternalRoleApplied, InternalRoleChange } from '@omc/contracts';
import { authenticate, requireRole } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GameContext } from '../context.js';

export async function roleRoutes(scope: FastifyInstance, { players }: GameContext): Promise<void> {
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
      const { role, roleVersion } = request.body;
      return { role: await players.changeRole(request.params.userId, role, roleVersion) };
    },
  );
}
