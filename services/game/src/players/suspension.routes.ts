// Auth's call on a suspension or a restore, on the game's internal listener (INTERNAL_PORT, auth alone
// may reach it; auth forwards the admin's own token), before the admin's call answers, so the very next
// click is refused (the event that follows is then a no-op).
import { InternalSuspensionApplied, InternalSuspensionChange } from '@omc/contracts';
import { authenticate, requireRole } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GameContext } from '../context.js';

export async function suspensionRoutes(scope: FastifyInstance, { players }: GameContext): Promise<void> {
  scope.addHook('onRequest', authenticate);
  scope.addHook('onRequest', requireRole('admin'));
  const app = scope.withTypeProvider<ZodTypeProvider>();

  app.put(
    '/internal/users/:userId/suspension',
    {
      schema: {
        params: z.object({ userId: z.uuid() }),
        body: InternalSuspensionChange,
        response: { 200: InternalSuspensionApplied },
      },
    },
    async (request) => ({ suspended: await players.changeAccess(request.params.userId, request.body) }),
  );
}
