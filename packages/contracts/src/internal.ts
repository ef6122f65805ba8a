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
