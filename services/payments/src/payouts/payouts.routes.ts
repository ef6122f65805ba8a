import { CollectResponse, MessageResponse, SetPaymentMethodRequest } from '@omc/contracts';
import { requireUser } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { setPayee } from './payouts.repo.js';
import type { AccountCheck } from '../users/account-check.js';
import type { PayoutsService } from './payouts.service.js';

export async function payoutRoutes(app: FastifyInstance, deps: Deps, payouts: PayoutsService, accounts: AccountCheck): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post('/api/winners/setPaymentMethod', { schema: { body: SetPaymentMethodRequest, response: { 200: MessageResponse } } }, async (request) => {
    await requireUser(request);
    const account = await accounts.current(request);
    await setPayee(deps.db, account.userId, request.body.paypalEmail.trim());
    return { message: 'PayPal email saved' };
  });

  typed.post('/api/winners/collect', { schema: { response: { 200: CollectResponse } } }, async (request) => {
    await requireUser(request);
    return payouts.collect(await accounts.current(request), 'winnings');
  });

  typed.post('/api/admin/collect', { schema: { response: { 200: CollectResponse } } }, async (request) => {
    await requireUser(request);
    return payouts.collect(await accounts.current(request), 'house');
  });
}
