// Payments' call when a purchase is refunded: what the purchase gave is taken back, once. On the
// internal port (INTERNAL_PORT), never through the gateway, with payments' service credential (the
// catalogue in contracts lists payments alone). During an admin's refund payments forwards the admin's own token; when payments finishes
// a refund by itself (the game was away, or payments restarted), it sends none, and the game then asks
// payments whether that refund's money went back (GET /internal/refunds/:id) and takes back only the
// purchase as payments recorded it: a caller without a token can only finish a refund payments holds.
import { INTERNAL, InternalTakeBack, InternalTakeBackRequest, PurchaseIdParams } from '@omc/contracts';
import { AppError, authenticate, badRequest, forbidden, outcomeReason, requireRole } from '@omc/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { GameContext } from '../context.js';

const admin = requireRole('admin');

export async function takeBackRoutes(
  scope: FastifyInstance,
  { purchases, deps }: GameContext,
): Promise<void> {
  scope.addHook('onRequest', async (request: FastifyRequest) => {
    if (request.headers.authorization === undefined) return;
    await authenticate(request);
    await admin(request);
  });

  /** Payments' record of the refund: its money went back, and the purchase is the one it recorded. */
  const refundHeld = async (purchase: InternalTakeBackRequest): Promise<void> => {
    const asked = await deps.internal.call(INTERNAL.refund, { params: { id: purchase.purchaseId } });
    if (asked.kind === 'refused' && asked.status === 404)
      throw forbidden('No refund of this purchase: an admin token is required');
    if (asked.kind !== 'answered')
      throw new AppError(
        'PAYMENTS_UNAVAILABLE',
        503,
        `Payments could not confirm the refund (${outcomeReason(asked)}); try again`,
      );
    const state = asked.data;
    if (state.status !== 'returned' && state.status !== 'completed')
      throw forbidden(`The refund of this purchase is ${state.status}: its money has not gone back`);
    if (JSON.stringify(state.purchase) !== JSON.stringify(InternalTakeBackRequest.parse(purchase)))
      throw forbidden('The purchase is not the one payments recorded');
  };

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
      if (request.headers.authorization === undefined) await refundHeld(request.body);
      const figures = await purchases.takeBack(request.body);
      return { purchaseId: request.params.id, ...figures };
    },
  );
}
