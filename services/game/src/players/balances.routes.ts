// Auth's call for the balances of one page of the admin list, in one call, on the game's internal
// listener (INTERNAL_PORT, auth alone may reach it; auth forwards the admin's own token).
import { GameBalances, INTERNAL_USER_BALANCES_PATH, InternalBalancesRequest } from '@omc/contracts';
import { authenticate, requireRole } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { GameContext } from '../context.js';

export async function balancesRoutes(scope: FastifyInstance, { players }: GameContext): Promise<void> {
  scope.addHook('onRequest', authenticate);
  scope.addHook('onRequest', requireRole('admin'));
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post(
    INTERNAL_USER_BALANCES_PATH,
    { schema: { body: InternalBalancesRequest, response: { 200: GameBalances } } },
    async (request) => ({ balances: await players.balances(request.body.userIds) }),
  );
}
