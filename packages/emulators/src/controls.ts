// The test controls under /__emulator: reset, queue faults, read the call log and the providers' state,
// settle a Braintree transaction (or decline its settlement), run the settlement batch, and sign a
// Braintree webhook about one.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { buildWebhook, WEBHOOK_KINDS, type WebhookKind } from './braintree/gateway.js';
import { CHARGED_STATUSES, moveTo, settleOlderThan, type BraintreeState } from './braintree/transactions.js';
import type { Faults, FaultRequest, FaultTarget } from './faults.js';
import { PAYOUT_ITEM_STATUSES, type PayoutItemStatus, type PayPalState } from './paypal/payouts-state.js';

export interface EmulatorCall {
  at: string;
  target: FaultTarget;
  /** The idempotency key of the call: Braintree's order id, PayPal's sender_batch_id. */
  key: string | null;
  outcome: string;
}

export interface ControlState {
  braintree: BraintreeState;
  paypal: PayPalState;
  faults: Faults;
  calls: EmulatorCall[];
}

/** The Braintree transactions (of one order id, when given), with what was charged and refunded. */
function transactionsView(braintree: BraintreeState, orderId: string | undefined) {
  const all = [...braintree.transactions.values()].filter(
    (t) => orderId === undefined || t.orderId === orderId,
  );
  return {
    transactions: all.map((t) => ({
      id: t.id,
      orderId: t.orderId,
      status: t.status,
      amount: t.amount,
      amountCents: t.amountCents,
      type: t.type,
      instrument: t.instrument,
      // A credit (a refund) gives money back: it is never a charge.
      charged: t.type === 'sale' && CHARGED_STATUSES.has(t.status),
      refundedCents: t.refundIds.reduce(
        (sum, id) => sum + (braintree.transactions.get(id)?.amountCents ?? 0),
        0,
      ),
      refundedTransactionId: t.refundedTransactionId,
    })),
  };
}

const SETTLEMENTS = ['settled', 'settlement_declined'] as const;

/**
 * Settles a transaction submitted for settlement, as Braintree's batch does: `settled` (the default) or,
 * with `{ outcome: 'settlement_declined' }`, declined by the processor at settlement.
 */
function settle(braintree: BraintreeState, request: FastifyRequest, reply: FastifyReply) {
  const transaction = braintree.transactions.get((request.params as { id: string }).id);
  if (!transaction) return reply.status(404).send({ message: 'no such transaction' });
  const outcome = ((request.body ?? {}) as { outcome?: string }).outcome ?? 'settled';
  if (!SETTLEMENTS.includes(outcome as (typeof SETTLEMENTS)[number]))
    return reply.status(400).send({ message: `outcome must be one of ${SETTLEMENTS.join(', ')}` });
  if (transaction.status !== 'submitted_for_settlement' && transaction.status !== 'settling')
    return reply.status(409).send({ message: `cannot settle a ${transaction.status} transaction` });
  moveTo(transaction, outcome as (typeof SETTLEMENTS)[number]);
  return { id: transaction.id, status: transaction.status };
}

/** Braintree's settlement batch: every sale submitted for settlement (or settling) becomes settled. */
const settlementBatch = (braintree: BraintreeState) => ({ settled: settleOlderThan(braintree, 0) });

/**
 * A signed webhook about one transaction; transaction_settled settles it first and
 * transaction_settlement_declined declines its settlement first, as the real events follow the batch.
 */
function webhook(braintree: BraintreeState, request: FastifyRequest, reply: FastifyReply) {
  const body = (request.body ?? {}) as {
    kind?: string;
    transactionId?: string;
    merchantId?: string;
    publicKey?: string;
    privateKey?: string;
  };
  if (!WEBHOOK_KINDS.includes(body.kind as WebhookKind))
    return reply.status(400).send({ message: `kind must be one of ${WEBHOOK_KINDS.join(', ')}` });
  const transaction = body.transactionId ? braintree.transactions.get(body.transactionId) : undefined;
  if (!transaction)
    return reply.status(404).send({ message: "transactionId must name one of the emulator's transactions" });
  const keys =
    body.publicKey && body.privateKey
      ? { publicKey: body.publicKey, privateKey: body.privateKey }
      : braintree.keys.get(body.merchantId ?? transaction.merchantId);
  if (!keys)
    return reply
      .status(409)
      .send({ message: 'no keys known for this merchant: give publicKey and privateKey' });
  const unsettled = transaction.status === 'submitted_for_settlement' || transaction.status === 'settling';
  if (body.kind === 'transaction_settled' && unsettled) moveTo(transaction, 'settled');
  if (body.kind === 'transaction_settlement_declined' && unsettled)
    moveTo(transaction, 'settlement_declined');
  return buildWebhook(transaction, body.kind as WebhookKind, keys);
}

const payoutsView = (paypal: PayPalState) => ({
  payouts: [...paypal.payouts.values()].map((p) => ({
    payoutBatchId: p.payoutBatchId,
    senderBatchId: p.senderBatchId,
    receiver: p.receiver,
    amount: p.amount,
    amountCents: p.amountCents,
    transactionId: p.transactionId,
    transactionStatus: p.transactionStatus,
  })),
});

/** Sets a payout item's transaction status (the batch named by its payout_batch_id or sender_batch_id). */
function setItemStatus(paypal: PayPalState, request: FastifyRequest, reply: FastifyReply) {
  const { id } = request.params as { id: string };
  const status = (request.body as { status?: string } | undefined)?.status;
  if (!PAYOUT_ITEM_STATUSES.includes(status as PayoutItemStatus))
    return reply.status(400).send({ message: `status must be one of ${PAYOUT_ITEM_STATUSES.join(', ')}` });
  const payout = paypal.payouts.get(paypal.bySenderBatchId.get(id) ?? id);
  if (!payout)
    return reply.status(404).send({ message: 'no payout with this payout_batch_id or sender_batch_id' });
  payout.transactionStatus = status as PayoutItemStatus;
  return { payoutBatchId: payout.payoutBatchId, transactionStatus: payout.transactionStatus };
}

export function controlRoutes(
  app: FastifyInstance,
  { braintree, paypal, faults, calls }: ControlState,
): void {
  app.post('/__emulator/reset', async () => {
    braintree.reset();
    paypal.reset();
    faults.clear();
    calls.length = 0;
    return { reset: true };
  });
  app.post('/__emulator/faults', async (request, reply) => {
    try {
      faults.add((request.body ?? {}) as FaultRequest);
    } catch (error) {
      return reply.status(400).send({ message: (error as Error).message });
    }
    return { pending: faults.pending() };
  });
  app.get('/__emulator/faults', async () => ({ pending: faults.pending() }));
  app.get('/__emulator/calls', async () => ({ calls }));
  app.get('/__emulator/braintree/transactions', async (request) =>
    transactionsView(braintree, (request.query as { orderId?: string }).orderId),
  );
  app.post('/__emulator/braintree/transactions/:id/settle', async (request, reply) =>
    settle(braintree, request, reply),
  );
  app.post('/__emulator/braintree/settlement-batch', async () => settlementBatch(braintree));
  app.post('/__emulator/braintree/webhooks', async (request, reply) => webhook(braintree, request, reply));
  app.get('/__emulator/paypal/payouts', async () => payoutsView(paypal));
  app.post('/__emulator/paypal/payouts/:id/status', async (request, reply) =>
    setItemStatus(paypal, request, reply),
  );
}
