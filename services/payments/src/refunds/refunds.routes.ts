// The operator's money routes: refund a purchase, and a player's purchases and payouts. Admins only
// (auth's current role, asked before every route; never the token's alone).
import {
  AdminPayoutsPage,
  AdminPurchasesPage,
  PlayerMoneyQuery,
  PurchaseIdParams,
  RefundRequest,
  RefundResponse,
  type AdminPurchase,
  type PackId,
  packById,
} from '@omc/contracts';
import { authenticate, badRequest, callerOf, freshAuthority } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PaymentsContext } from '../context.js';
import { currentAccount } from '../users/account-check.js';
import { decodeCursor, encodeCursor, playerPayouts, playerPurchases } from './player-money.repo.js';
import { clawbackView } from '../clawbacks/clawbacks.service.js';
import { refundView } from './refunds.service.js';

const DEFAULT_LIMIT = 20;

export async function refundRoutes(app: FastifyInstance, ctx: PaymentsContext): Promise<void> {
  const { refunds, accounts, deps } = ctx;
  app.addHook('onRequest', authenticate);
  app.addHook('onRequest', freshAuthority(currentAccount(accounts), { role: 'admin' }));
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    '/api/admin/purchases/:id/refund',
    { schema: { params: PurchaseIdParams, body: RefundRequest, response: { 200: RefundResponse } } },
    async (request) => {
      const caller = callerOf(request);
      const admin = await accounts.current(caller);
      return refunds.refund(caller, admin, request.params.id, request.body.reason, request.ip);
    },
  );

  const pageOf = (query: PlayerMoneyQuery) => {
    const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
    if (query.cursor !== undefined && !after)
      throw badRequest('cursor must be the nextCursor of a previous page', 'cursor');
    return { after, limit: query.limit ?? DEFAULT_LIMIT };
  };

  typed.get(
    '/api/admin/purchases',
    { schema: { querystring: PlayerMoneyQuery, response: { 200: AdminPurchasesPage } } },
    async (request) => {
      const page = pageOf(request.query);
      const found = await playerPurchases(deps.db, request.query.userId, { ...page, limit: page.limit + 1 });
      const rows = found.slice(0, page.limit);
      const purchases: AdminPurchase[] = rows.map((p) => {
        // Refunded once every step is done; until then the system is finishing it. The provider taking
        // the money back (a clawback) says so over a refund before it.
        const status = p.clawback
          ? p.clawback.status === 'completed'
            ? 'clawed_back'
            : 'clawback_in_progress'
          : !p.refund || p.refund.status === 'failed'
            ? p.status
            : p.refund.status === 'completed'
              ? p.refund.kind === 'void'
                ? 'voided'
                : 'refunded'
              : 'refund_in_progress';
        return {
          id: p.id,
          packId: p.pack_id,
          amount: p.amount_cents / 100,
          clicks: packById(p.pack_id as PackId).clicks,
          status,
          transactionId: p.provider_transaction_id,
          settlementStatus: p.settlement_status,
          disputeStatus: p.dispute_status,
          refund: p.refund ? refundView(p.refund) : null,
          clawback: p.clawback ? clawbackView(p.clawback) : null,
          createdAt: new Date(p.created_at).toISOString(),
        };
      });
      const last = rows[rows.length - 1];
      return { purchases, nextCursor: found.length > page.limit && last ? encodeCursor(last) : null };
    },
  );

  typed.get(
    '/api/admin/payouts',
    { schema: { querystring: PlayerMoneyQuery, response: { 200: AdminPayoutsPage } } },
    async (request) => {
      const page = pageOf(request.query);
      const found = await playerPayouts(deps.db, request.query.userId, { ...page, limit: page.limit + 1 });
      const rows = found.slice(0, page.limit);
      const last = rows[rows.length - 1];
      const held = await ctx.clawbacks.payoutHold(request.query.userId, false);
      return {
        ...(held ? { payoutHeld: held } : {}),
        payouts: rows.map((p) => ({
          id: p.id,
          kind: p.kind,
          amount: Number(p.amount_cents) / 100,
          status: p.status,
          paypalEmail: p.paypal_email,
          batchId: p.provider_batch_id,
          senderBatchId: p.id,
          error: p.error,
          createdAt: new Date(p.created_at).toISOString(),
          completedAt: p.completed_at ? new Date(p.completed_at).toISOString() : null,
        })),
        nextCursor: found.length > page.limit && last ? encodeCursor(last) : null,
      };
    },
  );
}
