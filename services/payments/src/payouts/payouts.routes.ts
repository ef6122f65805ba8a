import { CollectResponse, MessageResponse, SetPaymentMethodRequest } from '@omc/contracts';
import { requireUser } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import { setPayee } from './payouts.repo.js';
import type { PayoutsService } from './payouts.service.js';

export async function payoutRoutes(app: FastifyInstance, deps: Deps, payouts: PayoutsService): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post('/api/winners/setPaymentMethod', { schema: { body: SetPaymentMethodRequest, response: { 200: MessageResponse } } }, async (request) => {
    const user = await requireUser(request);
    await setPayee(deps.db, user.sub, request.body.paypalEmail.trim());
    return { message: 'PayPal email saved' };
  });

  typed.post('/api/winners/collect', { schema: { response: { 200: CollectResponse } } }, async (request) => {
    const user = await requireUser(request);
    return payouts.collect(user, 'winnings');
  });

  typed.post('/api/admin/collect', { schema: { response: { 200: CollectResponse } } }, async (request) => {
    const user = await requireUser(request);
    return payouts.collect(user, 'house');
  });
}
