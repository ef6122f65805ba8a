import { AdminUsersResponse, MessageResponse, UpdateRoleRequest } from '@omc/contracts';
import { requireRole } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../context.js';
import { recordedRole, signedIn } from '../users/current-user.js';
import { listUsers } from '../users/users.repo.js';
import { updateRole } from './admin.service.js';

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
    { schema: { body: UpdateRoleRequest, response: { 200: MessageResponse } } },
    async (request) => {
      const { changed } = await updateRole(ctx, request.body.email, request.body.role);
      return { message: changed ? 'Role updated' : 'Role unchanged' };
    },
  );
}
