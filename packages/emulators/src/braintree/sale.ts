// POST /merchants/:merchantId/transactions: a sale, as Braintree answers it. The amount and the nonce
// are checked, the test nonce (or the amount) decides approval or decline, and the transaction is kept.
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { XmlNode } from '../xml.js';
import {
  formatAmount,
  newId,
  parseAmount,
  sendXml,
  transactionXml,
  validationError,
  type BraintreeOptions,
  type EmulatedTransaction,
} from './transactions.js';
import { amountOutcome, TEST_NONCES, UNKNOWN_NONCE, type NonceOutcome } from './nonces.js';

interface SaleRequest {
  merchantId: string;
  input: Record<string, unknown>;
  orderId: string | null;
  nonce: string;
  submit: boolean;
  /** The request's echo in a validation error. */
  params: XmlNode;
}

function readSale(request: FastifyRequest): SaleRequest {
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
  return { merchantId, input, orderId, nonce, submit, params };
}

/** Braintree's validation error for a missing, malformed or zero amount or a missing nonce. */
function saleInputError(
  sale: SaleRequest,
  cents: number | undefined,
): { code: string; attribute: string; message: string } | undefined {
  const { amount } = sale.input;
  if (amount === undefined || amount === null || amount === '')
    return { code: '81502', attribute: 'amount', message: 'Amount is required.' };
  if (cents === undefined)
    return { code: '81503', attribute: 'amount', message: 'Amount is an invalid format.' };
  if (cents === 0)
    return { code: '81531', attribute: 'amount', message: 'Amount must be greater than zero.' };
  if (!sale.nonce) return { code: '91508', attribute: 'base', message: 'Cannot determine payment method.' };
  return undefined;
}

/** The transaction the sale makes: authorized, submitted for settlement, or declined by nonce or amount. */
function newSale(
  sale: SaleRequest,
  cents: number,
  outcome: Exclude<NonceOutcome, { kind: 'validation' }>,
): EmulatedTransaction {
  const now = new Date();
  const byAmount = amountOutcome(cents);
  const decline = outcome.kind === 'approved' ? byAmount : outcome;
  const transaction: EmulatedTransaction = {
    id: newId(),
    merchantId: sale.merchantId,
    type: sale.input.type === 'credit' ? 'credit' : 'sale',
    status: 'authorized',
    amount: formatAmount(cents),
    amountCents: cents,
    currencyIsoCode: 'EUR',
    orderId: sale.orderId,
    customFields: Object.fromEntries(
      Object.entries((sale.input.custom_fields ?? {}) as Record<string, unknown>).map(([k, v]) => [
        k,
        String(v),
      ]),
    ),
    paymentMethodNonce: sale.nonce,
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
  } else if (sale.submit) {
    transaction.status = 'submitted_for_settlement';
  }
  transaction.statusHistory.push({ status: transaction.status, amount: transaction.amount, timestamp: now });
  return transaction;
}

/** 201 with the transaction, or, for a declined one, Braintree's 422 error that carries it. */
function answerSale(reply: FastifyReply, transaction: EmulatedTransaction, params: XmlNode) {
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
}

export async function createSale(options: BraintreeOptions, request: FastifyRequest, reply: FastifyReply) {
  const sale = readSale(request);
  const cents = parseAmount(sale.input.amount);
  const inputError = saleInputError(sale, cents);
  if (inputError) return validationError(reply, 'transaction', [inputError], sale.params);

  const outcome: NonceOutcome = TEST_NONCES[sale.nonce] ?? UNKNOWN_NONCE;
  if (outcome.kind === 'validation') {
    options.record({ target: 'braintree.sale', key: sale.orderId, outcome: 'validation_error' });
    return validationError(
      reply,
      'transaction',
      [{ code: outcome.code, attribute: outcome.attribute, message: outcome.message }],
      sale.params,
    );
  }

  const transaction = newSale(sale, cents!, outcome);
  const effect = () => {
    options.state.transactions.set(transaction.id, transaction);
  };
  if (await options.applyFault('braintree.sale', request, reply, effect, undefined, sale.orderId))
    return reply;
  effect();
  options.record({ target: 'braintree.sale', key: sale.orderId, outcome: transaction.status });
  return answerSale(reply, transaction, sale.params);
}
