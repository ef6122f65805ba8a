import { CollectResponse, MessageResponse, SetPaymentMethodRequest } from '@omc/contracts';
import { authenticate, callerOf } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PaymentsContext } from '../context.js';
import { recordInAuditLog } from '../users/audit-trail.js';

export async function payoutRoutes(app: FastifyInstance, ctx: PaymentsContext): Promise<void> {
  const { payouts, accounts } = ctx;
  app.addHook('onRequest', authenticate);
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    '/api/winners/setPaymentMethod',
    { schema: { body: SetPaymentMethodRequest, response: { 200: MessageResponse } } },
    async (request) => {
      const account = await accounts.current(callerOf(request));
      await payouts.setPaymentMethod(account.userId, request.body.paypalEmail);
      return { message: 'PayPal email saved' };
    },
  );

  typed.post('/api/winners/collect', { schema: { response: { 200: CollectResponse } } }, async (request) => {
    return payouts.collect(await accounts.current(callerOf(request)), 'winnings');
  });

  typed.post('/api/admin/collect', { schema: { response: { 200: CollectResponse } } }, async (request) => {
    const caller = callerOf(request);
    const paid = await payouts.collect(await accounts.current(caller), 'house');
    const { AUTH_URL, AUTH_TIMEOUT_MS } = ctx.deps.config;
    await recordInAuditLog({ authUrl: AUTH_URL, timeoutMs: AUTH_TIMEOUT_MS }, caller, {
      action: 'house.collected',
      detail: {
        transactionId: paid.transactionId,
        ...(paid.amount === undefined ? {} : { amount: paid.amount }),
      },
      ip: request.ip,
    });
    return paid;
  });
}
