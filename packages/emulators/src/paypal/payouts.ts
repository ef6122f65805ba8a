// PayPal's REST API as this project calls it: OAuth2 client credentials (POST /v1/oauth2/token) and
// Payouts (POST /v1/payments/payouts, GET /v1/payments/payouts/:id). A sender_batch_id is paid once:
// reusing it answers PayPal's duplicate error with a link to the original batch.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { createBatch } from './create-batch.js';
import { issueToken } from './oauth.js';
import { authorize, batchView, paypalError, type PayPalOptions } from './payouts-state.js';

async function getBatch(options: PayPalOptions, request: FastifyRequest, reply: FastifyReply) {
  if (!authorize(options.state, request, reply)) return reply;
  if (await options.applyFault('paypal.getBatch', request, reply)) return reply;
  const payout = options.state.payouts.get((request.params as { id: string }).id);
  if (!payout)
    return paypalError(reply, 404, 'RESOURCE_NOT_FOUND', 'The requested resource was not found.', [
      { issue: 'Batch not found' },
    ]);
  return batchView(payout, options.publicUrl(), true);
}

export async function paypalRoutes(app: FastifyInstance, options: PayPalOptions): Promise<void> {
  // The token call's body is a form (grant_type=client_credentials).
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(String(body))));
    },
  );
  app.post('/v1/oauth2/token', async (request, reply) => issueToken(options, request, reply));
  app.post('/v1/payments/payouts', async (request, reply) => createBatch(options, request, reply));
  app.get('/v1/payments/payouts/:id', async (request, reply) => getBatch(options, request, reply));
}
