// POST /merchants/:merchantId/transactions/:id/refund: a credit against a settled sale, whole or partial.
// A fault can drop the answer after the refund (afterEffect): the sale found afterwards shows it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  formatAmount,
  merchantTransaction,
  newId,
  parseAmount,
  sendXml,
  transactionXml,
  validationError,
  type BraintreeOptions,
  type BraintreeState,
  type EmulatedTransaction,
} from './transactions.js';

/** Braintree's refusal of this refund, if any: a credit, nothing left, not settled, or a bad amount. */
function refusalOf(transaction: EmulatedTransaction, left: number, cents: number | undefined) {
  return transaction.type !== 'sale'
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
}

/** The credit transaction for `cents` of the sale, submitted for settlement. */
function newRefund(
  state: BraintreeState,
  transaction: EmulatedTransaction,
  cents: number,
): EmulatedTransaction {
  const now = new Date();
  const amount = formatAmount(cents);
  const refund: EmulatedTransaction = {
    ...transaction,
    id: newId(),
    merchantId: transaction.merchantId,
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
  return refund;
}

export async function refundTransaction(
  options: BraintreeOptions,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const { state } = options;
  const transaction = merchantTransaction(state, request);
  if (!transaction)
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
  const refusal = refusalOf(transaction, left, cents);
  let refund: EmulatedTransaction | undefined;
  const effect = () => {
    if (refusal || refund || cents === undefined) return;
    refund = newRefund(state, transaction, cents);
    options.record({ target: 'braintree.refund', key: transaction.orderId, outcome: 'refunded' });
  };
  if (await options.applyFault('braintree.refund', request, reply, effect, undefined, transaction.orderId))
    return reply;
  if (refusal) return validationError(reply, 'transaction', [{ ...refusal, attribute: 'base' }]);
  effect();
  return sendXml(reply, 201, 'transaction', transactionXml(refund!));
}
