// Braintree's gateway API as the `braintree` Node SDK calls it: JSON requests (underscored keys), XML
// answers, HTTP Basic auth with the merchant's public and private key, under /merchants/:merchantId.
import { createHmac, createHash, randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ProviderRouteOptions } from '../faults.js';
import { xmlDocument, type XmlNode, type XmlValue } from '../xml.js';
import { amountOutcome, TEST_NONCES, UNKNOWN_NONCE, type Instrument, type NonceOutcome } from './nonces.js';

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

const newId = (length = 8) =>
  randomBytes(length)
    .toString('base64url')
    .replace(/[^a-z0-9]/gi, '')
    .toLowerCase()
    .slice(0, length)
    .padEnd(length, '0');

function sendXml(reply: FastifyReply, status: number, root: string, value: XmlValue) {
  return reply
    .status(status)
    .header('content-type', 'application/xml; charset=utf-8')
    .send(xmlDocument(root, value));
}

function validationError(
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

function parseAmount(amount: unknown): number | undefined {
  const text =
    typeof amount === 'number' ? amount.toFixed(2) : typeof amount === 'string' ? amount.trim() : '';
  const match = /^(\d{1,7})(?:\.(\d{1,2}))?$/.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '').padEnd(2, '0'));
}

const formatAmount = (cents: number) => `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;

export interface BraintreeOptions extends ProviderRouteOptions {
  state: BraintreeState;
}

export async function braintreeRoutes(app: FastifyInstance, options: BraintreeOptions): Promise<void> {
  const { state } = options;

  // Every gateway call carries the merchant's public:private key pair as Basic auth.
  app.addHook('onRequest', async (request, reply) => {
    const header = request.headers.authorization ?? '';
    const merchantId = (request.params as { merchantId?: string }).merchantId ?? '';
    const match = /^Basic (.+)$/.exec(header);
    const decoded = match ? Buffer.from(match[1]!, 'base64').toString('utf8') : '';
    const colon = decoded.indexOf(':');
    if (colon <= 0 || colon === decoded.length - 1) {
      return reply.status(401).header('content-type', 'application/xml; charset=utf-8').send('');
    }
    state.keys.set(merchantId, { publicKey: decoded.slice(0, colon), privateKey: decoded.slice(colon + 1) });
  });

  app.post('/merchants/:merchantId/client_token', async (request, reply) => {
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
  });

  app.post('/merchants/:merchantId/transactions', async (request, reply) => {
    const { merchantId } = request.params as { merchantId: string };
    const body = (request.body ?? {}) as { transaction?: Record<string, unknown> };
    const input = body.transaction ?? {};
    const orderId = typeof input.order_id === 'string' ? input.order_id : null;
    const nonce = typeof input.payment_method_nonce === 'string' ? input.payment_method_nonce : '';
    const options_ = (input.options ?? {}) as { submit_for_settlement?: boolean | string };
    const submit = options_.submit_for_settlement === true || options_.submit_for_settlement === 'true';
    const params: XmlNode = {
      transaction: {
        type: String(input.type ?? ''),
        amount: String(input.amount ?? ''),
        orderId: orderId ?? undefined,
      },
    };

    const cents = parseAmount(input.amount);
    if (input.amount === undefined || input.amount === null || input.amount === '') {
      return validationError(
        reply,
        'transaction',
        [{ code: '81502', attribute: 'amount', message: 'Amount is required.' }],
        params,
      );
    }
    if (cents === undefined)
      return validationError(
        reply,
        'transaction',
        [{ code: '81503', attribute: 'amount', message: 'Amount is an invalid format.' }],
        params,
      );
    if (cents === 0)
      return validationError(
        reply,
        'transaction',
        [{ code: '81531', attribute: 'amount', message: 'Amount must be greater than zero.' }],
        params,
      );
    if (!nonce)
      return validationError(
        reply,
        'transaction',
        [{ code: '91508', attribute: 'base', message: 'Cannot determine payment method.' }],
        params,
      );

    const outcome: NonceOutcome = TEST_NONCES[nonce] ?? UNKNOWN_NONCE;
    if (outcome.kind === 'validation') {
      options.record({ target: 'braintree.sale', key: orderId, outcome: 'validation_error' });
      return validationError(
        reply,
        'transaction',
        [{ code: outcome.code, attribute: outcome.attribute, message: outcome.message }],
        params,
      );
    }

    const now = new Date();
    const byAmount = amountOutcome(cents);
    const decline = outcome.kind === 'approved' ? byAmount : outcome;
    const transaction: EmulatedTransaction = {
      id: newId(),
      merchantId,
      type: input.type === 'credit' ? 'credit' : 'sale',
      status: 'authorized',
      amount: formatAmount(cents),
      amountCents: cents,
      currencyIsoCode: 'EUR',
      orderId,
      customFields: Object.fromEntries(
        Object.entries((input.custom_fields ?? {}) as Record<string, unknown>).map(([k, v]) => [
          k,
          String(v),
        ]),
      ),
      paymentMethodNonce: nonce,
      instrument: outcome.instrument,
      processorResponseCode: '1000',
      processorResponseText: 'Approved',
      processorResponseType: 'approved',
      gatewayRejectionReason: null,
      card:
        'cardType' in outcome
          ? { cardType: outcome.cardType, last4: outcome.last4, bin: outcome.bin }
          : undefined,
      refundedTransactionId: null,
      refundIds: [],
      createdAt: now,
      updatedAt: now,
      statusHistory: [],
    };
    if (decline?.kind === 'processor_declined') {
      transaction.status = 'processor_declined';
      transaction.processorResponseCode = decline.code;
      transaction.processorResponseText = decline.text;
      transaction.processorResponseType = decline.code.startsWith('3') ? 'soft_declined' : 'hard_declined';
    } else if (decline?.kind === 'gateway_rejected') {
      transaction.status = 'gateway_rejected';
      transaction.gatewayRejectionReason = decline.reason;
      transaction.processorResponseCode = '';
      transaction.processorResponseText = 'Unknown ()';
    } else if (submit) {
      transaction.status = 'submitted_for_settlement';
    }
    transaction.statusHistory.push({
      status: transaction.status,
      amount: transaction.amount,
      timestamp: now,
    });

    const effect = () => {
      state.transactions.set(transaction.id, transaction);
    };
    if (await options.applyFault('braintree.sale', request, reply, effect, undefined, orderId)) return reply;
    effect();
    options.record({ target: 'braintree.sale', key: orderId, outcome: transaction.status });

    if (transaction.status === 'processor_declined' || transaction.status === 'gateway_rejected') {
      const message =
        transaction.status === 'processor_declined'
          ? transaction.processorResponseText
          : `Gateway Rejected: ${transaction.gatewayRejectionReason}`;
      return sendXml(reply, 422, 'api-error-response', {
        errors: { errors: { $array: 'error', items: [] } },
        params,
        message,
        transaction: transactionXml(transaction),
      });
    }
    return sendXml(reply, 201, 'transaction', transactionXml(transaction));
  });

  app.get('/merchants/:merchantId/transactions/:id', async (request, reply) => {
    const { merchantId, id } = request.params as { merchantId: string; id: string };
    if (await options.applyFault('braintree.find', request, reply)) return reply;
    const transaction = state.transactions.get(id);
    if (!transaction || transaction.merchantId !== merchantId)
      return reply.status(404).header('content-type', 'application/xml; charset=utf-8').send('');
    return sendXml(reply, 200, 'transaction', transactionXml(transaction));
  });

  const matches = (t: EmulatedTransaction, search: Record<string, unknown>): boolean => {
    const orderId = search.order_id as { is?: string } | undefined;
    if (orderId?.is !== undefined && t.orderId !== orderId.is) return false;
    const ids = search.ids as string[] | undefined;
    if (Array.isArray(ids) && !ids.includes(t.id)) return false;
    return true;
  };

  app.post('/merchants/:merchantId/transactions/advanced_search_ids', async (request, reply) => {
    const { merchantId } = request.params as { merchantId: string };
    if (await options.applyFault('braintree.search', request, reply)) return reply;
    const search = ((request.body ?? {}) as { search?: Record<string, unknown> }).search ?? {};
    const ids = [...state.transactions.values()]
      .filter((t) => t.merchantId === merchantId && matches(t, search))
      .map((t) => t.id);
    options.record({
      target: 'braintree.search',
      key: (search.order_id as { is?: string } | undefined)?.is ?? null,
      outcome: `${ids.length} found`,
    });
    return sendXml(reply, 200, 'search-results', { pageSize: 50, ids: { $array: 'item', items: ids } });
  });

  app.post('/merchants/:merchantId/transactions/advanced_search', async (request, reply) => {
    const { merchantId } = request.params as { merchantId: string };
    const search = ((request.body ?? {}) as { search?: Record<string, unknown> }).search ?? {};
    const found = [...state.transactions.values()].filter(
      (t) => t.merchantId === merchantId && matches(t, search),
    );
    return sendXml(reply, 200, 'credit-card-transactions', {
      $array: 'transaction',
      $type: 'collection',
      items: found.map(transactionXml),
    });
  });

  // Void and refund act on the merchant's own transactions; a fault can drop the answer after the work
  // (afterEffect), as a lost answer from Braintree would: the sale found afterwards shows what happened.
  app.put('/merchants/:merchantId/transactions/:id/void', async (request, reply) => {
    const { merchantId, id } = request.params as { merchantId: string; id: string };
    const transaction = state.transactions.get(id);
    if (!transaction || transaction.merchantId !== merchantId)
      return reply.status(404).header('content-type', 'application/xml; charset=utf-8').send('');
    const voidable =
      transaction.type === 'sale' &&
      (transaction.status === 'authorized' || transaction.status === 'submitted_for_settlement');
    const effect = () => {
      if (!voidable || transaction.status === 'voided') return;
      transaction.status = 'voided';
      transaction.updatedAt = new Date();
      transaction.statusHistory.push({
        status: 'voided',
        amount: transaction.amount,
        timestamp: transaction.updatedAt,
      });
      options.record({ target: 'braintree.void', key: transaction.orderId, outcome: 'voided' });
    };
    if (await options.applyFault('braintree.void', request, reply, effect, undefined, transaction.orderId))
      return reply;
    if (!voidable) {
      return validationError(reply, 'transaction', [
        {
          code: '91504',
          attribute: 'base',
          message:
            'Transaction can only be voided if status is authorized, submitted_for_settlement, or - for PayPal - settlement_pending.',
        },
      ]);
    }
    effect();
    return sendXml(reply, 200, 'transaction', transactionXml(transaction));
  });

  app.post('/merchants/:merchantId/transactions/:id/refund', async (request, reply) => {
    const { merchantId, id } = request.params as { merchantId: string; id: string };
    const transaction = state.transactions.get(id);
    if (!transaction || transaction.merchantId !== merchantId)
      return reply.status(404).header('content-type', 'application/xml; charset=utf-8').send('');
    // A partial refund names its amount (`transaction.amount`, as the SDK's refund(id, amount) and the
    // console send it); without one, what is left of the sale is refunded.
    const asked = ((request.body ?? {}) as { transaction?: { amount?: unknown } }).transaction?.amount;
    const refunded = transaction.refundIds.reduce(
      (sum, refundId) => sum + (state.transactions.get(refundId)?.amountCents ?? 0),
      0,
    );
    const left = transaction.amountCents - refunded;
    const cents = asked === undefined ? left : parseAmount(asked);
    const refusal =
      transaction.type !== 'sale'
        ? { code: '91505', message: 'Cannot refund credit' }
        : left <= 0
          ? { code: '91512', message: 'Transaction has already been completely refunded.' }
          : transaction.status !== 'settled' && transaction.status !== 'settling'
            ? { code: '91506', message: 'Cannot refund a transaction unless it is settled.' }
            : cents === undefined || cents <= 0
              ? { code: '81503', message: 'Amount is an invalid format.' }
              : cents > left
                ? { code: '91521', message: 'Refund amount is too large.' }
                : undefined;
    let refund: EmulatedTransaction | undefined;
    const effect = () => {
      if (refusal || refund || cents === undefined) return;
      const now = new Date();
      const amount = formatAmount(cents);
      refund = {
        ...transaction,
        id: newId(),
        merchantId,
        type: 'credit',
        status: 'submitted_for_settlement',
        amount,
        amountCents: cents,
        refundedTransactionId: transaction.id,
        refundIds: [],
        createdAt: now,
        updatedAt: now,
        statusHistory: [{ status: 'submitted_for_settlement', amount, timestamp: now }],
      };
      state.transactions.set(refund.id, refund);
      transaction.refundIds.push(refund.id);
      options.record({ target: 'braintree.refund', key: transaction.orderId, outcome: 'refunded' });
    };
    if (await options.applyFault('braintree.refund', request, reply, effect, undefined, transaction.orderId))
      return reply;
    if (refusal) return validationError(reply, 'transaction', [{ ...refusal, attribute: 'base' }]);
    effect();
    return sendXml(reply, 201, 'transaction', transactionXml(refund!));
  });
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
