import { AdminUsersResponse, MessageResponse, UpdateRoleRequest } from '@omc/contracts';
import { callerOf, requireRole } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../context.js';
import { recordedRole, signedIn } from '../users/current-user.js';
import { listUsers } from '../users/users.repo.js';
import { updateRole } from './admin.service.js';
import { tellGameTheRole } from './game-role-sync.js';

export async function adminRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  scope.addHook('onRequest', signedIn(ctx));
  // Before the body is read too: a non-admin learns nothing about what the route would accept.
  scope.addHook('onRequest', requireRole('admin', recordedRole));
  const app = scope.withTypeProvider<ZodTypeProvider>();

  app.get('/api/admin/users', { schema: { response: { 200: AdminUsersResponse } } }, async () => {
    return { users: await listUsers(ctx.deps.db) };
  });

  app.post(
    '/api/admin/updateRole',
    { schema: { body: UpdateRoleRequest, response: { 200: MessageResponse, 202: MessageResponse } } },
    async (request, reply) => {
      const { role } = request.body;
      const result = await updateRole(ctx, request.body.email, role);
      if (!result.changed) return { message: 'Role unchanged' };
      // Read-your-writes: the game has the new role before this answers, or the admin is told it has not.
      const told = await tellGameTheRole(ctx.deps, callerOf(request), {
        userId: result.userId,
        role,
        roleVersion: result.roleVersion,
      });
      if (told.confirmed) return { message: 'Role updated' };
      request.log.warn(
        { reason: told.reason, userId: result.userId },
        'the game did not confirm a role change',
      );
      return reply.code(202).send({
        message:
          "Role updated. The game did not confirm it in time: the player's clicks may follow the old role for a few seconds.",
      });
    },
  );
}
