// Braintree's gateway API as the `braintree` Node SDK calls it: JSON requests (underscored keys), XML
// answers, HTTP Basic auth with the merchant's public and private key, under /merchants/:merchantId.
import { createHmac, createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { xmlDocument, type XmlNode } from '../xml.js';
import { refundTransaction } from './refund.js';
import { createSale } from './sale.js';
import { searchIds, searchTransactions } from './search.js';
import { voidTransaction } from './void.js';
import {
  BraintreeState,
  sendXml,
  transactionXml,
  merchantTransaction,
  type EmulatedTransaction,
  type BraintreeOptions,
} from './transactions.js';

/** Every gateway call carries the merchant's public:private key pair as Basic auth: kept to sign webhooks. */
async function rememberKeys(state: BraintreeState, request: FastifyRequest, reply: FastifyReply) {
  const header = request.headers.authorization ?? '';
  const merchantId = (request.params as { merchantId?: string }).merchantId ?? '';
  const match = /^Basic (.+)$/.exec(header);
  const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  if (colon <= 0 || colon === decoded.length - 1) {
    return reply.status(401).header('content-type', 'application/xml; charset=utf-8').send('');
  }
  state.keys.set(merchantId, { publicKey: decoded.slice(0, colon), privateKey: decoded.slice(colon + 1) });
}

async function clientToken(options: BraintreeOptions, request: FastifyRequest, reply: FastifyReply) {
  const { merchantId } = request.params as { merchantId: string };
  if (await options.applyFault('braintree.clientToken', request, reply)) return reply;
  const body = (request.body ?? {}) as { client_token?: { version?: number } };
  const token = {
    version: body.client_token?.version ?? 2,
    authorizationFingerprint: `${createHash('sha256').update(randomBytes(16)).digest('hex')}|created_at=${new Date().toISOString()}&merchant_id=${merchantId}`,
    configUrl: `${options.publicUrl()}/merchants/${merchantId}/client_api/v1/configuration`,
    clientApiUrl: `${options.publicUrl()}/merchants/${merchantId}/client_api`,
    environment: 'emulator',
    merchantId,
    notice: 'Local emulator: no real money moves.',
  };
  options.record({ target: 'braintree.clientToken', key: null, outcome: 'ok' });
  return sendXml(reply, 201, 'client-token', {
    value: Buffer.from(JSON.stringify(token)).toString('base64'),
  });
}

async function findTransaction(options: BraintreeOptions, request: FastifyRequest, reply: FastifyReply) {
  if (await options.applyFault('braintree.find', request, reply)) return reply;
  const transaction = merchantTransaction(options.state, request);
  if (!transaction)
    return reply.status(404).header('content-type', 'application/xml; charset=utf-8').send('');
  return sendXml(reply, 200, 'transaction', transactionXml(transaction));
}

export async function braintreeRoutes(app: FastifyInstance, options: BraintreeOptions): Promise<void> {
  type Handler = (options: BraintreeOptions, request: FastifyRequest, reply: FastifyReply) => unknown;
  const route = (handler: Handler) => async (request: FastifyRequest, reply: FastifyReply) =>
    handler(options, request, reply);
  app.addHook('onRequest', async (request, reply) => rememberKeys(options.state, request, reply));
  app.post('/merchants/:merchantId/client_token', route(clientToken));
  app.post('/merchants/:merchantId/transactions', route(createSale));
  app.get('/merchants/:merchantId/transactions/:id', route(findTransaction));
  app.post('/merchants/:merchantId/transactions/advanced_search_ids', route(searchIds));
  app.post('/merchants/:merchantId/transactions/advanced_search', route(searchTransactions));
  // Void and refund act on the merchant's own transactions; a fault can drop the answer after the work
  // (afterEffect), as a lost answer from Braintree would: the sale found afterwards shows what happened.
  app.put('/merchants/:merchantId/transactions/:id/void', route(voidTransaction));
  app.post('/merchants/:merchantId/transactions/:id/refund', route(refundTransaction));
}

/** Signs a payload as Braintree signs webhooks: HMAC-SHA1 keyed with SHA1(private key), "publicKey|hexdigest". */
export function signWebhookPayload(publicKey: string, privateKey: string, payload: string): string {
  const key = createHash('sha1').update(privateKey, 'binary').digest();
  return `${publicKey}|${createHmac('sha1', key).update(payload, 'binary').digest('hex')}`;
}

export const WEBHOOK_KINDS = [
  'transaction_settled',
  'transaction_settlement_declined',
  'dispute_opened',
  'dispute_lost',
  'dispute_won',
  'dispute_accepted',
] as const;
export type WebhookKind = (typeof WEBHOOK_KINDS)[number];

/** A signed notification about one of the emulator's transactions, in the form Braintree posts it. */
export function buildWebhook(
  transaction: EmulatedTransaction,
  kind: WebhookKind,
  keys: { publicKey: string; privateKey: string },
): { bt_signature: string; bt_payload: string } {
  let subject: XmlNode;
  if (kind.startsWith('transaction_')) {
    subject = { transaction: transactionXml(transaction) };
  } else {
    const status = kind.replace('dispute_', '');
    subject = {
      dispute: {
        id: `dp_${transaction.id}`,
        amount: transaction.amount,
        amountDisputed: transaction.amount,
        currencyIsoCode: transaction.currencyIsoCode,
        kind: 'chargeback',
        status: status === 'opened' ? 'open' : status,
        reason: 'fraud',
        transaction: { id: transaction.id, amount: transaction.amount, orderId: transaction.orderId },
      },
    };
  }
  const xml = xmlDocument('notification', { timestamp: new Date(), kind, subject });
  const payload = `${Buffer.from(xml).toString('base64')}\n`;
  return { bt_signature: signWebhookPayload(keys.publicKey, keys.privateKey, payload), bt_payload: payload };
}
