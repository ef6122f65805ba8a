// PUT /merchants/:merchantId/transactions/:id/void: voids an authorized or submitted sale of the merchant.
// A fault can drop the answer after the void (afterEffect): the sale found afterwards shows it.
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  merchantTransaction,
  moveTo,
  sendXml,
  transactionXml,
  validationError,
  type BraintreeOptions,
} from './transactions.js';

export async function voidTransaction(
  options: BraintreeOptions,
  request: FastifyRequest,
  reply: FastifyReply,
) {
  const transaction = merchantTransaction(options.state, request);
  if (!transaction)
    return reply.status(404).header('content-type', 'application/xml; charset=utf-8').send('');
  const voidable =
    transaction.type === 'sale' &&
    (transaction.status === 'authorized' || transaction.status === 'submitted_for_settlement');
  const effect = () => {
    if (!voidable || transaction.status === 'voided') return;
    moveTo(transaction, 'voided');
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
}
