// Braintree's gateway API as the `braintree` Node SDK calls it: JSON requests (underscored keys), XML
// answers, HTTP Basic auth with the merchant's public and private key, under /merchants/:merchantId.
import { createHmac, createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderRouteOptions } from '../faults.js';
import { xmlDocument, type XmlNode, type XmlValue } from '../xml.js';
import type { Instrument } from './nonces.js';
import { refundTransaction } from './refund.js';
import { createSale } from './sale.js';
import { searchIds, searchTransactions } from './search.js';
import { voidTransaction } from './void.js';

export interface EmulatedTransaction {
  id: string;
  merchantId: string;
  type: 'sale' | 'credit';
  status:
    | 'authorized'
    | 'submitted_for_settlement'
    | 'settling'
    | 'settled'
    | 'voided'
    | 'processor_declined'
    | 'gateway_rejected';
  amount: string;
  amountCents: number;
  currencyIsoCode: string;
  orderId: string | null;
  customFields: Record<string, string>;
  paymentMethodNonce: string;
  instrument: Instrument;
  processorResponseCode: string;
  processorResponseText: string;
  processorResponseType: 'approved' | 'soft_declined' | 'hard_declined';
  gatewayRejectionReason: string | null;
  card?: { cardType?: string; last4?: string; bin?: string };
  refundedTransactionId: string | null;
  refundIds: string[];
  createdAt: Date;
  updatedAt: Date;
  statusHistory: { status: string; amount: string; timestamp: Date }[];
}

/** Transactions that moved (pretend) money: what "charged" means for the tests. */
export const CHARGED_STATUSES = new Set(['authorized', 'submitted_for_settlement', 'settling', 'settled']);

export class BraintreeState {
  transactions = new Map<string, EmulatedTransaction>();
  /** The last credentials seen per merchant: webhooks are signed with them, as the real gateway does with the merchant's keys. */
  keys = new Map<string, { publicKey: string; privateKey: string }>();
  reset() {
    this.transactions.clear();
  }
}

export const newId = (length = 8) =>
  randomBytes(length)
    .toString('base64url')
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, length)
    .padEnd(length, '0');

export function sendXml(reply: FastifyReply, status: number, root: string, value: XmlValue) {
  return reply
    .status(status)
    .header('content-type', 'application/xml; charset=utf-8')
    .send(xmlDocument(root, value));
}

export function validationError(
  reply: FastifyReply,
  scope: string,
  errors: { code: string; attribute: string; message: string }[],
  params: XmlNode = {},
) {
  const nested: XmlNode = {
    errors: {
      $array: 'error',
      items: errors.map((e) => ({ code: e.code, attribute: e.attribute, message: e.message })),
    },
  };
  return sendXml(reply, 422, 'api-error-response', {
    errors: { [scope]: nested, errors: { $array: 'error', items: [] } },
    params,
    message: errors.map((e) => e.message).join('\n'),
  });
}

/** Moves a transaction to a new status now, recording it in its status history. */
export function moveTo(transaction: EmulatedTransaction, status: EmulatedTransaction['status']): void {
  transaction.status = status;
  transaction.updatedAt = new Date();
  transaction.statusHistory.push({ status, amount: transaction.amount, timestamp: transaction.updatedAt });
}

export function transactionXml(t: EmulatedTransaction): XmlNode {
  const node: XmlNode = {
    id: t.id,
    status: t.status,
    type: t.type,
    currencyIsoCode: t.currencyIsoCode,
    amount: t.amount,
    merchantAccountId: t.merchantId,
    orderId: t.orderId,
    createdAt: t.createdAt,
    updatedAt: t.updatedAt,
    processorResponseCode: t.processorResponseCode,
    processorResponseText: t.processorResponseText,
    processorResponseType: t.processorResponseType,
    gatewayRejectionReason: t.gatewayRejectionReason,
    paymentInstrumentType: t.instrument,
    refundedTransactionId: t.refundedTransactionId,
    refundIds: { $array: 'item', items: t.refundIds },
    disputes: { $array: 'dispute', items: [] },
    statusHistory: {
      $array: 'status-event',
      items: t.statusHistory.map((s) => ({ status: s.status, amount: s.amount, timestamp: s.timestamp })),
    },
  };
  if (Object.keys(t.customFields).length > 0) node.customFields = { ...t.customFields };
  if (t.instrument === 'credit_card' && t.card) {
    node.creditCard = {
      bin: t.card.bin,
      last4: t.card.last4,
      cardType: t.card.cardType,
      expirationMonth: '12',
      expirationYear: '2030',
      maskedNumber: `${t.card.bin}******${t.card.last4}`,
    };
  }
  if (t.instrument === 'paypal_account')
    node.paypal = {
      payerEmail: 'payer@example.com',
      paymentId: `PAYID-${t.id.toUpperCase()}`,
      payerStatus: 'VERIFIED',
    };
  return node;
}

export function parseAmount(amount: unknown): number | undefined {
  const text =
    typeof amount === 'number' ? amount.toFixed(2) : typeof amount === 'string' ? amount.trim() : '';
  const match = /^(\d{1,7})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

export const formatAmount = (cents: number) =>
  `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

export interface BraintreeOptions extends ProviderRouteOptions {
  state: BraintreeState;
}

/** The merchant's transaction named in the path (/merchants/:merchantId/transactions/:id), if it is theirs. */
export function merchantTransaction(
  state: BraintreeState,
  request: FastifyRequest,
): EmulatedTransaction | undefined {
  const { merchantId, id } = request.params as { merchantId: string; id: string };
  const transaction = state.transactions.get(id);
  return transaction && transaction.merchantId === merchantId ? transaction : undefined;
}

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
