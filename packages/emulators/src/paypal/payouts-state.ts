// The emulator's PayPal payouts and what every route does with them: the state, ids, PayPal's error
// shape, a batch as PayPal shows it, and the bearer-token check.
import { randomBytes } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ProviderRouteOptions } from '../faults.js';

export interface EmulatedPayout {
  payoutBatchId: string;
  senderBatchId: string;
  clientId: string;
  receiver: string;
  amount: { value: string; currency: string };
  amountCents: number;
  note: string | null;
  senderItemId: string | null;
  payoutItemId: string;
  transactionId: string;
  /** The item's transaction status as PayPal would show it (SUCCESS unless a test set another). */
  transactionStatus: PayoutItemStatus;
  createdAt: Date;
}

/** PayPal's transaction statuses of a payout item. */
export const PAYOUT_ITEM_STATUSES = [
  'SUCCESS',
  'FAILED',
  'PENDING',
  'UNCLAIMED',
  'RETURNED',
  'ONHOLD',
  'BLOCKED',
  'REFUNDED',
  'REVERSED',
] as const;
export type PayoutItemStatus = (typeof PAYOUT_ITEM_STATUSES)[number];

/** PayPal's error on an item in these statuses, as its batch details show it. */
const ITEM_ERRORS: Partial<Record<PayoutItemStatus, { name: string; message: string }>> = {
  UNCLAIMED: {
    name: 'RECEIVER_UNREGISTERED',
    message: 'The recipient for this payout does not have an account; unclaimed in 30 days, it is returned.',
  },
  FAILED: { name: 'RECEIVER_ACCOUNT_LOCKED', message: "Recipient's account locked or inactive." },
};

export class PayPalState {
  tokens = new Map<string, { clientId: string; expiresAt: number }>();
  payouts = new Map<string, EmulatedPayout>();
  bySenderBatchId = new Map<string, string>();
  reset() {
    this.tokens.clear();
    this.payouts.clear();
    this.bySenderBatchId.clear();
  }
}

export const upperId = (length: number) => randomBytes(length).toString('hex').toUpperCase().slice(0, length);

export function paypalError(
  reply: FastifyReply,
  status: number,
  name: string,
  message: string,
  details: { field?: string; issue: string; location?: string }[] = [],
  links: unknown[] = [],
) {
  return reply.status(status).send({
    name,
    message,
    debug_id: upperId(13).toLowerCase(),
    details,
    links,
    information_link: `https://developer.paypal.com/docs/api/payments.payouts-batch/#errors`,
  });
}

export interface PayPalOptions extends ProviderRouteOptions {
  state: PayPalState;
}

export function batchView(payout: EmulatedPayout, publicUrl: string, detailed: boolean) {
  const header = {
    payout_batch_id: payout.payoutBatchId,
    batch_status: detailed ? (payout.transactionStatus === 'PENDING' ? 'PROCESSING' : 'SUCCESS') : 'PENDING',
    time_created: payout.createdAt.toISOString(),
    ...(detailed
      ? {
          time_completed: payout.createdAt.toISOString(),
          amount: payout.amount,
          fees: { currency: payout.amount.currency, value: '0.00' },
        }
      : {}),
    sender_batch_header: { sender_batch_id: payout.senderBatchId, email_subject: 'You have a payout!' },
  };
  const links = [
    {
      href: `${publicUrl}/v1/payments/payouts/${payout.payoutBatchId}`,
      rel: 'self',
      method: 'GET',
      encType: 'application/json',
    },
  ];
  if (!detailed) return { batch_header: header, links };
  return {
    batch_header: header,
    items: [
      {
        payout_item_id: payout.payoutItemId,
        transaction_id: payout.transactionId,
        transaction_status: payout.transactionStatus,
        ...(ITEM_ERRORS[payout.transactionStatus]
          ? { errors: { ...ITEM_ERRORS[payout.transactionStatus], details: [] } }
          : {}),
        payout_batch_id: payout.payoutBatchId,
        payout_item_fee: { currency: payout.amount.currency, value: '0.00' },
        payout_item: {
          recipient_type: 'EMAIL',
          amount: payout.amount,
          note: payout.note,
          receiver: payout.receiver,
          sender_item_id: payout.senderItemId,
        },
        time_processed: payout.createdAt.toISOString(),
        links: [
          {
            href: `${publicUrl}/v1/payments/payouts-item/${payout.payoutItemId}`,
            rel: 'item',
            method: 'GET',
          },
        ],
      },
    ],
    links,
  };
}

/** The client id of a valid, unexpired bearer token; otherwise answers 401 and returns undefined. */
export function authorize(
  state: PayPalState,
  request: FastifyRequest,
  reply: FastifyReply,
): string | undefined {
  const match = /^Bearer (.+)$/.exec(request.headers.authorization ?? '');
  const token = match ? state.tokens.get(match[1]!) : undefined;
  if (!token || token.expiresAt < Date.now()) {
    void reply
      .status(401)
      .send({ error: 'invalid_token', error_description: 'Token signature verification failed' });
    return undefined;
  }
  return token.clientId;
}
