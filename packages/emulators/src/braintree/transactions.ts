// The emulator's Braintree transactions and what every route does with them: the state, ids and
// amounts, the XML answers, a status change with its history entry, the merchant's own transaction.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderRouteOptions } from '../faults.js';
import { xmlDocument, type XmlNode, type XmlValue } from '../xml.js';
import type { Instrument } from './nonces.js';

export interface EmulatedTransaction {
  id: string;
  merchantId: string;
  type: 'sale' | 'credit';
  status:
    | 'authorized'
    | 'submitted_for_settlement'
    | 'settling'
    | 'settled'
    | 'settlement_declined'
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

/** The settlement batch: every sale submitted for settlement (or settling) at least `ageMs` ago settles; their ids. */
export function settleOlderThan(state: BraintreeState, ageMs: number): string[] {
  const settled: string[] = [];
  const before = Date.now() - ageMs;
  for (const transaction of state.transactions.values())
    if (
      transaction.type === 'sale' &&
      (transaction.status === 'submitted_for_settlement' || transaction.status === 'settling') &&
      transaction.createdAt.getTime() <= before
    ) {
      moveTo(transaction, 'settled');
      settled.push(transaction.id);
    }
  return settled;
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
