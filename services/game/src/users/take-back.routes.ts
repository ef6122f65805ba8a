// Payments' call when an admin refunds a purchase: what the purchase gave is taken back, once. On the
// internal port (INTERNAL_PORT), which the NetworkPolicies open to auth and payments alone, never through
// the gateway; payments forwards the refunding admin's own token, so only an admin's refund reaches it.
import { InternalTakeBack, InternalTakeBackRequest, PurchaseIdParams } from '@omc/contracts';
import { authenticate, badRequest, requireRole } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { GameContext } from '../context.js';

export async function takeBackRoutes(scope: FastifyInstance, { engine }: GameContext): Promise<void> {
  scope.addHook('onRequest', authenticate);
  scope.addHook('onRequest', requireRole('admin'));
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post(
    '/internal/purchases/:id/take-back',
    {
      schema: {
        params: PurchaseIdParams,
        body: InternalTakeBackRequest,
        response: { 200: InternalTakeBack },
      },
    },
    async (request) => {
      if (request.body.purchaseId !== request.params.id)
        throw badRequest('purchaseId must be the purchase of the path', 'purchaseId');
      const figures = await engine.takeBackPurchase(request.body);
      return { purchaseId: request.params.id, ...figures };
    },
  );
}
