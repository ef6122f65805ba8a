// The operator's money routes (services/payments): refunding a purchase, and a player's purchases and
// payouts with their provider ids.
import { z } from 'zod';
import { ADMIN_PAGE_MAX } from './admin.js';

const Cursor = z
  .string({ error: 'cursor must be the nextCursor of a previous page' })
  .max(200, { error: 'cursor must be the nextCursor of a previous page' })
  .regex(/^[A-Za-z0-9_-]+$/, { error: 'cursor must be the nextCursor of a previous page' });

const PageLimit = z.coerce
  .number({ error: `limit must be a whole number from 1 to ${ADMIN_PAGE_MAX}` })
  .int({ error: `limit must be a whole number from 1 to ${ADMIN_PAGE_MAX}` })
  .min(1, { error: `limit must be a whole number from 1 to ${ADMIN_PAGE_MAX}` })
  .max(ADMIN_PAGE_MAX, { error: `limit must be a whole number from 1 to ${ADMIN_PAGE_MAX}` });

export const PurchaseIdParams = z.object({ id: z.uuid({ error: 'id must be a purchase id' }) });

/** Why the purchase is refunded: kept with the refund and in the audit log. */
export const RefundRequest = z.object({
  reason: z
    .string({ error: 'reason is required' })
    .trim()
    .min(3, { error: 'reason must be at least 3 characters' })
    .max(500, { error: 'reason must be at most 500 characters' }),
});
export type RefundRequest = z.infer<typeof RefundRequest>;

/**
 * A refund's state: `returning` while the provider is asked (or its answer was lost), `returned` once
 * the money went back but the game has not yet taken back the clicks and the pot share (payments
 * finishes both by itself), `completed` when everything is done, `failed` when the provider refused.
 */
export const RefundStatus = z.enum(['returning', 'returned', 'completed', 'failed']);
export type RefundStatus = z.infer<typeof RefundStatus>;

export const RefundView = z.object({
  purchaseId: z.uuid(),
  status: RefundStatus,
  /** `void` when the charge was not settled yet (nothing reached the card), `refund` when it was. */
  kind: z.enum(['void', 'refund']).nullable(),
  /** The refund's transaction id at Braintree (a void keeps the sale's id). */
  providerRefundId: z.string().nullable(),
  /** Euros given back to the buyer: what the provider refunded (less than the price after a partial refund). */
  amount: z.number(),
  reason: z.string(),
  /** Purchased clicks taken back from the buyer's unspent balance (0 when the round was over). */
  clicksTakenBack: z.number().int().nonnegative(),
  /** The round's unlimited pass was withdrawn. */
  passTakenBack: z.boolean(),
  /** Euros taken out of the round's pot (0 when the round was already won). */
  potTakenBack: z.number(),
  /** Euros taken from the house balance (its share, and the pot share of a round already won). */
  houseTakenBack: z.number(),
  /** Euros neither the pot nor the house held (the house pot already collected): the operator's loss. */
  operatorLoss: z.number(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});
export type RefundView = z.infer<typeof RefundView>;

export const RefundResponse = z.object({ message: z.string(), refund: RefundView });
export type RefundResponse = z.infer<typeof RefundResponse>;

/** `GET /api/admin/purchases?userId=&cursor=&limit=` and `GET /api/admin/payouts?userId=...`, newest first. */
export const PlayerMoneyQuery = z.object({
  userId: z.uuid({ error: 'userId must be a user id' }),
  cursor: Cursor.optional(),
  limit: PageLimit.optional(),
});
export type PlayerMoneyQuery = z.infer<typeof PlayerMoneyQuery>;

/**
 * A clawback: the provider took the purchase's money back (its settlement declined, a dispute lost), so
 * the game took back the buyer's unspent clicks and the pot share; what was spent or won is the house's loss.
 */
export const ClawbackView = z.object({
  cause: z.enum(['settlement_declined', 'dispute_lost']),
  /** `taking_back` until the game took back and the ledger posted it (payments finishes it by itself). */
  status: z.enum(['taking_back', 'completed']),
  /** Euros the provider took back: the price. */
  amount: z.number(),
  clicksTakenBack: z.number().int().nonnegative(),
  /** Purchased clicks not taken back: spent, or expired with their round. */
  clicksSpent: z.number().int().nonnegative(),
  passTakenBack: z.boolean(),
  potTakenBack: z.number(),
  /** Euros of the house's share of the unspent clicks given back. */
  houseTakenBack: z.number(),
  /** Euros the house lost: the value of what was spent or won (houseLoss includes operatorLoss). */
  houseLoss: z.number(),
  /** Of houseLoss, euros the house did not hold (collected): the operator's loss. */
  operatorLoss: z.number(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});
export type ClawbackView = z.infer<typeof ClawbackView>;

export const AdminPurchase = z.object({
  id: z.uuid(),
  packId: z.string(),
  /** Euros charged. */
  amount: z.number(),
  /** Clicks bought; null for the unlimited pass. */
  clicks: z.number().int().nullable(),
  /**
   * pending, succeeded, declined, failed as the checkout left it; refund_in_progress from the refund's
   * start until every step of it is done (payments finishes it by itself); then refunded or voided;
   * clawback_in_progress from the provider taking the money back until the clawback is done, then
   * clawed_back.
   */
  status: z.enum([
    'pending',
    'succeeded',
    'declined',
    'failed',
    'refund_in_progress',
    'refunded',
    'voided',
    'clawback_in_progress',
    'clawed_back',
  ]),
  /** The sale's transaction id at Braintree. */
  transactionId: z.string().nullable(),
  settlementStatus: z.string().nullable(),
  disputeStatus: z.string().nullable(),
  refund: RefundView.nullable(),
  /** Absent from older servers. */
  clawback: ClawbackView.nullable().optional(),
  createdAt: z.string(),
});
export type AdminPurchase = z.infer<typeof AdminPurchase>;

export const AdminPurchasesPage = z.object({
  purchases: z.array(AdminPurchase),
  nextCursor: z.string().nullable(),
});
export type AdminPurchasesPage = z.infer<typeof AdminPurchasesPage>;

export const AdminPayout = z.object({
  id: z.uuid(),
  kind: z.enum(['winnings', 'house']),
  /** Euros. */
  amount: z.number(),
  status: z.enum(['pending', 'completed', 'failed']),
  paypalEmail: z.string(),
  /** PayPal's payout batch id; our payout id is the batch's sender_batch_id. */
  batchId: z.string().nullable(),
  senderBatchId: z.string(),
  error: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
});
export type AdminPayout = z.infer<typeof AdminPayout>;

export const AdminPayoutsPage = z.object({
  payouts: z.array(AdminPayout),
  /** Why the player's collect of winnings is held now (the PAYOUT_HELD message); absent when it is not. */
  payoutHeld: z.string().nullable().optional(),
  nextCursor: z.string().nullable(),
});
export type AdminPayoutsPage = z.infer<typeof AdminPayoutsPage>;
