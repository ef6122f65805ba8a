import { PaymentsProfile } from '@omc/contracts';
import { authenticate, callerOf } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PaymentsContext } from '../context.js';

export async function profileRoutes(app: FastifyInstance, { profile }: PaymentsContext): Promise<void> {
  app.addHook('onRequest', authenticate);
  app
    .withTypeProvider<ZodTypeProvider>()
    .get('/api/payments/profile', { schema: { response: { 200: PaymentsProfile } } }, async (request) =>
      profile.profile(request.user, callerOf(request)),
    );
}
