// Braintree webhooks: form-encoded bt_signature + bt_payload, from the provider (no user token).
import { badRequest } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { PaymentsContext } from '../context.js';

export async function webhookRoutes(app: FastifyInstance, { webhooks }: PaymentsContext): Promise<void> {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    },
  );

  app.post('/api/payments/webhooks/braintree', async (request) => {
    const body = (request.body ?? {}) as Record<string, unknown>;
    const signature = typeof body.bt_signature === 'string' ? body.bt_signature : '';
    const payload = typeof body.bt_payload === 'string' ? body.bt_payload : '';
    if (!signature) throw badRequest('bt_signature is required', 'bt_signature');
    if (!payload) throw badRequest('bt_payload is required', 'bt_payload');
    return webhooks.receive(signature, payload, request.log);
  });
}
