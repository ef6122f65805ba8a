import {
  CheckoutRequest,
  CheckoutResponse,
  ClientTokenResponse,
  type InternalAccount,
  ERROR_CODE,
} from '@omc/contracts';
import { AppError, authenticate, authenticateIfPresent, authorityOf, freshAuthority } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PaymentsContext } from '../context.js';
import { currentAccount } from '../users/account-check.js';

export async function checkoutRoutes(app: FastifyInstance, ctx: PaymentsContext): Promise<void> {
  const { deps, checkout, accounts } = ctx;

  // Open to guests (the buy dialog loads before sign-in); a token, when sent, must be valid.
  await app.register(async (guests) => {
    guests.addHook('onRequest', authenticateIfPresent);
    guests
      .withTypeProvider<ZodTypeProvider>()
      .get('/api/payments/token', { schema: { response: { 200: ClientTokenResponse } } }, async (request) => {
        try {
          return { clientToken: await deps.payments.clientToken(), environment: deps.payments.environment };
        } catch (error) {
          request.log.warn({ err: (error as Error).message }, 'client token failed');
          throw new AppError(
            ERROR_CODE.PROVIDER_UNAVAILABLE,
            502,
            'The payment provider is unavailable; no client token could be made. Try again shortly.',
          );
        }
      });
  });

  await app.register(async (signedIn) => {
    signedIn.addHook('onRequest', authenticate);
    // A deleted account's token lives on for minutes; auth says at once that it is gone: charge nothing.
    signedIn.addHook('onRequest', freshAuthority(currentAccount(accounts)));
    signedIn
      .withTypeProvider<ZodTypeProvider>()
      .post(
        '/api/payments/checkout',
        { schema: { body: CheckoutRequest, response: { 200: CheckoutResponse, 502: CheckoutResponse } } },
        async (request, reply) => {
          const account = authorityOf<InternalAccount>(request);
          const result = await checkout.checkout(account.userId, request.body);
          return reply.status(result.status as 200).send(result.body);
        },
      );
  });
}
