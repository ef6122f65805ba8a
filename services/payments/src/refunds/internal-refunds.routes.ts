// A purchase's refund as payments holds it, for the game: before it takes back a purchase without an
// admin's token (payments finishing a refund in the background, or a clawback), the game asks here whether
// that purchase's money went back, and takes back only the purchase as payments recorded it. A clawback
// answers `returned` until it completes: the provider took the money back. Read-only, on payments'
// internal path (no public prefix of the gateway is /internal).
import { InternalRefundState, PurchaseIdParams, internalRefundPath } from '@omc/contracts';
import { notFound } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PaymentsContext } from '../context.js';
import { getPurchase } from '../checkout/purchases.repo.js';
import { getClawback } from '../clawbacks/clawbacks.repo.js';
import { getRefund } from './refunds.repo.js';

export async function internalRefundRoutes(
  scope: FastifyInstance,
  { deps, refunds }: PaymentsContext,
): Promise<void> {
  scope
    .withTypeProvider<ZodTypeProvider>()
    .get(
      internalRefundPath(':id'),
      { schema: { params: PurchaseIdParams, response: { 200: InternalRefundState } } },
      async (request) => {
        const refund = await getRefund(deps.db, request.params.id);
        // The provider took the money back (a clawback): it went back as surely as a refund's did.
        const clawback = await getClawback(deps.db, request.params.id);
        const purchase = (refund || clawback) && (await getPurchase(deps.db, request.params.id));
        if (!purchase) throw notFound(`No refund of purchase ${request.params.id}`);
        const moneyBack = refund?.status === 'returned' || refund?.status === 'completed';
        const status =
          moneyBack || !clawback
            ? refund!.status
            : clawback.status === 'completed'
              ? 'completed'
              : 'returned';
        return { purchaseId: purchase.id, status, purchase: await refunds.asCompleted(purchase) };
      },
    );
}
