// Auth's calls about a player on the game's internal listener (INTERNAL_PORT, auth alone may reach it;
// auth forwards the admin's own token): a suspension or a restore before the admin's call answers, so
// the very next click is refused (the event that follows is then a no-op), and the balances of one page
// of the admin list in one call.
import {
  GameBalances,
  INTERNAL_USER_BALANCES_PATH,
  InternalBalancesRequest,
  InternalSuspensionApplied,
  InternalSuspensionChange,
} from '@omc/contracts';
import { authenticate, conflict, requireRole } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GameContext } from '../context.js';
import { applyAccess, findUsers } from '../db/players.repo.js';

/** As for a role change: a user suspended right after signing up may be ahead of the sign-up event. */
const UNKNOWN_USER_WAIT_MS = 500;

export async function playerRoutes(scope: FastifyInstance, { deps, engine }: GameContext): Promise<void> {
  const { db } = deps;
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
    async (request) => {
      const { userId } = request.params;
      const apply = () =>
        db.transaction().execute((trx) => applyAccess(trx, userId, request.body, new Date()));
      const deadline = Date.now() + UNKNOWN_USER_WAIT_MS;
      let known = await apply();
      while (!known && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        known = await apply();
      }
      if (!known)
        throw conflict('The game does not know this user yet; the suspension arrives with its event');
      await engine.syncUser(userId);
      const user = (await findUsers(db, [userId])).get(userId);
      return { suspended: user?.suspension != null };
    },
  );

  app.post(
    INTERNAL_USER_BALANCES_PATH,
    { schema: { body: InternalBalancesRequest, response: { 200: GameBalances } } },
    async (request) => {
      const views = await engine.userViews([...new Set(request.body.userIds)]);
      return { balances: Object.fromEntries(views) };
    },
  );
}
