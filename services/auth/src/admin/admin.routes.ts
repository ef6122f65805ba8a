import { AdminUsersResponse, MessageResponse, UpdateRoleRequest } from '@omc/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../context.js';
import { adminOnly } from '../users/current-user.js';
import { listUsers } from '../users/users.repo.js';
import { updateRole } from './admin.service.js';

export async function adminRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const onRequest = adminOnly(ctx);

  app.get('/api/admin/users', { onRequest, schema: { response: { 200: AdminUsersResponse } } }, async () => {
    return { users: await listUsers(ctx.deps.db) };
  });

  app.post(
    '/api/admin/updateRole',
    { onRequest, schema: { body: UpdateRoleRequest, response: { 200: MessageResponse } } },
    async (request) => {
      const { changed } = await updateRole(ctx, request.body.email, request.body.role);
      return { message: changed ? 'Role updated' : 'Role unchanged' };
    },
  );
}
