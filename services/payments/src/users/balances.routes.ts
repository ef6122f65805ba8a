// The money beside one page of the admin list, for auth (which forwards the admin's own token): winnings
// owed, spent on packs and paid out, per player, in one call per page. Not reachable through the gateway
// (no public prefix is /internal).
import {
  centsToEuros,
  INTERNAL_USER_BALANCES_PATH,
  InternalBalancesRequest,
  MoneyBalances,
} from '@omc/contracts';
import { authenticate, requireRole } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PaymentsContext } from '../context.js';
import { moneyOf } from './balances.repo.js';

export async function balancesRoutes(scope: FastifyInstance, { deps }: PaymentsContext): Promise<void> {
  scope.addHook('onRequest', authenticate);
  scope.addHook('onRequest', requireRole('admin'));
  scope
    .withTypeProvider<ZodTypeProvider>()
    .post(
      INTERNAL_USER_BALANCES_PATH,
      { schema: { body: InternalBalancesRequest, response: { 200: MoneyBalances } } },
      async (request) => {
        const money = await moneyOf(deps.db, [...new Set(request.body.userIds)]);
        return {
          balances: Object.fromEntries(
            [...money].map(([id, m]) => [
              id,
              {
                potEarned: centsToEuros(m.winnings),
                spent: centsToEuros(m.spent),
                paidOut: centsToEuros(m.paidOut),
              },
            ]),
          ),
        };
      },
    );
}
