import { CheckoutRequest, CheckoutResponse, ClientTokenResponse } from '@omc/contracts';
import { AppError, optionalUser, requireUser } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Deps } from '../deps.js';
import type { AccountCheck } from '../users/account-check.js';
import type { CheckoutService } from './checkout.service.js';

export async function checkoutRoutes(app: FastifyInstance, deps: Deps, checkout: CheckoutService, accounts: AccountCheck): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.get('/api/payments/token', { schema: { response: { 200: ClientTokenResponse } } }, async (request) => {
    await optionalUser(request);
    try {
      return { clientToken: await deps.payments.clientToken(), environment: deps.payments.environment };
    } catch (error) {
      request.log.warn({ err: (error as Error).message }, 'client token failed');
      throw new AppError('PROVIDER_UNAVAILABLE', 502, 'The payment provider is unavailable; no client token could be made. Try again shortly.');
    }
  });

  typed.post('/api/payments/checkout', { schema: { body: CheckoutRequest, response: { 200: CheckoutResponse, 502: CheckoutResponse } } }, async (request, reply) => {
    await requireUser(request);
    // A deleted account's token lives on for minutes; auth says at once that it is gone: charge nothing.
    const account = await accounts.current(request);
    const result = await checkout.checkout(account.userId, request.body);
    return reply.status(result.status as 200).send(result.body);
  });
}
