// Completed purchases as payments recorded them, for the game: it applies the ones whose event it never
// received (the outbox is the record, the bus is the doorbell). Not reachable through the gateway (no
// public prefix is /internal); the game alone may call it (NetworkPolicy). Read-only.
import {
  INTERNAL_COMPLETED_PURCHASES_PATH,
  InternalPurchasesQuery,
  InternalPurchasesResponse,
  PackId,
  packById,
} from '@omc/contracts';
import { badRequest } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PaymentsContext } from '../context.js';
import { ACCOUNTS } from '../ledger/accounts.js';
import { completedPurchasesSince } from './purchases.repo.js';

export async function internalPurchasesRoutes(
  scope: FastifyInstance,
  { deps }: PaymentsContext,
): Promise<void> {
  scope
    .withTypeProvider<ZodTypeProvider>()
    .get(
      INTERNAL_COMPLETED_PURCHASES_PATH,
      { schema: { querystring: InternalPurchasesQuery, response: { 200: InternalPurchasesResponse } } },
      async (request) => {
        const { since, afterAt, afterId, limit } = request.query;
        if ((afterAt === undefined) !== (afterId === undefined))
          throw badRequest('afterAt and afterId: give both or neither', afterAt ? 'afterId' : 'afterAt');
        const rows = await completedPurchasesSince(deps.db, {
          since: new Date(since),
          after: afterAt && afterId ? { at: new Date(afterAt), id: afterId } : undefined,
          limit,
          roundPot: ACCOUNTS.roundPot,
          house: ACCOUNTS.house,
        });
        return {
          purchases: rows.map((r) => {
            const pack = packById(PackId.parse(r.pack_id));
            return {
              purchaseId: r.id,
              userId: r.user_id,
              packId: pack.id,
              clicks: pack.clicks,
              unlimited: pack.clicks === null,
              amountCents: r.amount_cents,
              potShareCents: r.pot_share_cents,
              houseShareCents: r.house_share_cents,
              transactionId: r.provider_transaction_id ?? '',
              completedAt: r.completed_at.toISOString(),
            };
          }),
        };
      },
    );
}
