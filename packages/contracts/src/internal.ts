// Service-to-service reads for reconciliation: the outbox is the record, the bus is the doorbell. A
// consumer that moves money or clicks asks the producer for its record (a win before it is credited, the
// purchases and wins it may have missed), so a forged event moves nothing and a lost one is repaired.
// Reachable from the named caller only (NetworkPolicies; no public prefix of the gateway is /internal).
import { z } from 'zod';
import { PurchaseCompletedV1, RoundWonV1 } from './events.js';

const Limit = z.coerce.number().int().min(1).max(1000).default(200);
const Instant = z.iso.datetime({ offset: true });

/** `GET /internal/wins/:round` (game, for payments): the round's win as the game recorded it, or 404. */
export const INTERNAL_WINS_PATH = '/internal/wins';
export const InternalWin = RoundWonV1;
export type InternalWin = z.infer<typeof InternalWin>;

/** `GET /internal/wins?since=&afterRound=&limit=` (game, for payments): wins since then, by round. */
export const InternalWinsQuery = z.object({
  since: Instant,
  afterRound: z.coerce.number().int().nonnegative().default(0),
  limit: Limit,
});
export const InternalWinsResponse = z.object({ wins: z.array(InternalWin) });
export type InternalWinsResponse = z.infer<typeof InternalWinsResponse>;

/**
 * `GET /internal/purchases/completed?since=&afterAt=&afterId=&limit=` (payments, for the game): completed
 * purchases, oldest completion first, as their purchase.completed events said; page on with the last
 * one's `completedAt` and `purchaseId`.
 */
export const INTERNAL_COMPLETED_PURCHASES_PATH = '/internal/purchases/completed';
export const InternalPurchasesQuery = z.object({
  since: Instant,
  afterAt: Instant.optional(),
  afterId: z.uuid().optional(),
  limit: Limit,
});
export const InternalPurchase = PurchaseCompletedV1.extend({ completedAt: Instant });
export type InternalPurchase = z.infer<typeof InternalPurchase>;
export const InternalPurchasesResponse = z.object({ purchases: z.array(InternalPurchase) });
export type InternalPurchasesResponse = z.infer<typeof InternalPurchasesResponse>;

/**
 * `POST /internal/purchases/:id/take-back` (game, on its internal port, for payments, with the refunding
 * admin's token): takes back, once, what a refunded purchase gave. The body is the purchase as completed
 * (the game applies it first if its event has not arrived). The answer is what was taken, the same on
 * every call for this purchase.
 */
export const internalTakeBackPath = (purchaseId: string) => `/internal/purchases/${purchaseId}/take-back`;
export const InternalTakeBackRequest = PurchaseCompletedV1;
export type InternalTakeBackRequest = z.infer<typeof InternalTakeBackRequest>;
export const InternalTakeBack = z.object({
  purchaseId: z.uuid(),
  /** The round the purchase was applied to. */
  round: z.number().int().positive(),
  /** Whether that round was still in play when the take-back ran (else its clicks had expired and its pot was won). */
  roundInPlay: z.boolean(),
  /** Purchased clicks taken from the buyer's unspent balance of that round, at most the pack's. */
  clicks: z.number().int().nonnegative(),
  /** The round's unlimited pass was withdrawn. */
  pass: z.boolean(),
  /** Cents taken out of the round's pot: the pot share when the round is in play, else 0. */
  potCents: z.number().int().nonnegative(),
});
export type InternalTakeBack = z.infer<typeof InternalTakeBack>;

/**
 * `GET /internal/refunds/:id` (payments, for the game): a purchase's refund as payments holds it. The
 * game takes back a purchase without an admin's token only when payments answers that its money went
 * back (`returned` or `completed`), and only the purchase as payments recorded it.
 */
export const internalRefundPath = (purchaseId: string) => `/internal/refunds/${purchaseId}`;
export const InternalRefundState = z.object({
  purchaseId: z.uuid(),
  status: z.enum(['returning', 'returned', 'completed', 'failed']),
  purchase: InternalTakeBackRequest,
});
export type InternalRefundState = z.infer<typeof InternalRefundState>;
