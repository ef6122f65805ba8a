// POST /v1/payments/payouts: one payout item per batch, paid once per sender_batch_id. Reusing one
// (or a queued duplicate fault) answers PayPal's duplicate error with a link to the original batch.
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  authorize,
  batchView,
  paypalError,
  upperId,
  type EmulatedPayout,
  type PayPalOptions,
} from './payouts-state.js';

interface BatchRequest {
  sender_batch_header?: { sender_batch_id?: unknown };
  items?: {
    recipient_type?: string;
    receiver?: unknown;
    amount?: { value?: unknown; currency?: unknown };
    note?: unknown;
    sender_item_id?: unknown;
  }[];
}

/** What a valid batch asks for, or the field PayPal's VALIDATION_ERROR names. */
type CheckedBatch =
  | { error: { field: string; location: string; issue: string } }
  | {
      error?: undefined;
      senderBatchId: string;
      receiver: string;
      value: string;
      amountCents: number;
      currency: string;
      note: string | null;
      senderItemId: string | null;
    };

function checkBatch(body: BatchRequest): CheckedBatch {
  const senderBatchId = body.sender_batch_header?.sender_batch_id;
  if (typeof senderBatchId !== 'string' || senderBatchId.length === 0 || senderBatchId.length > 256)
    return {
      error: {
        field: 'sender_batch_header.sender_batch_id',
        location: 'body',
        issue: 'Required field missing',
      },
    };
  const items = Array.isArray(body.items) ? body.items : [];
  if (items.length !== 1)
    return {
      error: { field: 'items', location: 'body', issue: 'This emulator takes exactly one item per batch' },
    };
  const item = items[0]!;
  const value = typeof item.amount?.value === 'string' ? item.amount.value : '';
  const match = /^(\d{1,9})\.(\d{2})$/.exec(value);
  if (!match || Number(match[1]) * 100 + Number(match[2]) === 0)
    return {
      error: {
        field: 'items[0].amount.value',
        location: 'body',
        issue: 'Amount must be a positive value with two decimals',
      },
    };
  if (
    typeof item.receiver !== 'string' ||
    item.receiver.length > 254 ||
    !/^[^\s@]+@[^\s@.]+(?:\.[^\s@.]+)+$/.test(item.receiver)
  )
    return {
      error: {
        field: 'items[0].receiver',
        location: 'body',
        issue: 'Receiver is invalid or does not match with type',
      },
    };
  return {
    senderBatchId,
    receiver: item.receiver,
    value,
    amountCents: Number(match[1]) * 100 + Number(match[2]),
    currency: typeof item.amount?.currency === 'string' ? item.amount.currency : 'EUR',
    note: typeof item.note === 'string' ? item.note : null,
    senderItemId: typeof item.sender_item_id === 'string' ? item.sender_item_id : null,
  };
}

/** PayPal's answer to a reused sender_batch_id, linking the batch that holds it. */
function duplicateError(reply: FastifyReply, existing: EmulatedPayout, publicUrl: string) {
  return paypalError(
    reply,
    400,
    'USER_BUSINESS_ERROR',
    'User business error.',
    [
      {
        field: 'SENDER_BATCH_ID',
        location: 'body',
        issue: `Batch with given sender_batch_id already exists`,
      },
    ],
    [
      {
        href: `${publicUrl}/v1/payments/payouts/${existing.payoutBatchId}`,
        rel: 'self',
        method: 'GET',
        encType: 'application/json',
      },
    ],
  );
}

export async function createBatch(options: PayPalOptions, request: FastifyRequest, reply: FastifyReply) {
  const { state } = options;
  const clientId = authorize(state, request, reply);
  if (!clientId) return reply;
  const batch = checkBatch((request.body ?? {}) as BatchRequest);
  if (batch.error)
    return paypalError(reply, 400, 'VALIDATION_ERROR', 'Invalid request - see details.', [batch.error]);
  const { senderBatchId } = batch;

  const existingId = state.bySenderBatchId.get(senderBatchId);
  if (existingId) {
    options.record({ target: 'paypal.payouts', key: senderBatchId, outcome: 'duplicate' });
    return duplicateError(reply, state.payouts.get(existingId)!, options.publicUrl());
  }

  const payout: EmulatedPayout = {
    payoutBatchId: upperId(13),
    senderBatchId,
    clientId,
    receiver: batch.receiver,
    amount: { value: batch.value, currency: batch.currency },
    amountCents: batch.amountCents,
    note: batch.note,
    senderItemId: batch.senderItemId,
    payoutItemId: upperId(13),
    transactionId: upperId(17),
    transactionStatus: 'SUCCESS',
    createdAt: new Date(),
  };
  const effect = () => {
    state.payouts.set(payout.payoutBatchId, payout);
    state.bySenderBatchId.set(senderBatchId, payout.payoutBatchId);
  };
  const fault = options.faults.take('paypal.payouts');
  if (fault?.kind === 'duplicate') {
    effect();
    options.record({ target: 'paypal.payouts', key: senderBatchId, outcome: 'duplicate (injected)' });
    return duplicateError(reply, payout, options.publicUrl());
  }
  if (fault && (await options.applyFault('paypal.payouts', request, reply, effect, fault, senderBatchId)))
    return reply;
  effect();
  options.record({ target: 'paypal.payouts', key: senderBatchId, outcome: 'paid' });
  return reply.status(201).send(batchView(payout, options.publicUrl(), false));
}
