// POST /v1/oauth2/token: client credentials (Basic auth) for a bearer token that payout calls carry.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { upperId, type PayPalOptions } from './payouts-state.js';

export async function issueToken(options: PayPalOptions, request: FastifyRequest, reply: FastifyReply) {
  if (await options.applyFault('paypal.oauth', request, reply)) return reply;
  const match = /^Basic (.+)$/.exec(request.headers.authorization ?? '');
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const [clientId, secret] = [
    decoded.slice(0, decoded.indexOf(':')),
    decoded.slice(decoded.indexOf(':') + 1),
  ];
  if (!match || !clientId || !secret || decoded.indexOf(':') < 0) {
    return reply
      .status(401)
      .send({ error: 'invalid_client', error_description: 'Client Authentication failed' });
  }
  const grant = (request.body as Record<string, string> | undefined)?.grant_type;
  if (grant !== 'client_credentials') {
    return reply
      .status(400)
      .send({ error: 'unsupported_grant_type', error_description: 'Grant Type is NULL or not supported' });
  }
  const accessToken = `A21AA${randomBytes(24).toString('base64url')}`;
  const expiresIn = 32_400;
  options.state.tokens.set(accessToken, { clientId, expiresAt: Date.now() + expiresIn * 1000 });
  options.record({ target: 'paypal.oauth', key: clientId, outcome: 'ok' });
  return {
    scope: 'https://uri.paypal.com/services/payments/payouts https://uri.paypal.com/payments/payouts',
    access_token: accessToken,
    token_type: 'Bearer',
    app_id: `APP-${upperId(17)}`,
    expires_in: expiresIn,
    nonce: `${new Date().toISOString()}${randomBytes(8).toString('hex')}`,
  };
}
