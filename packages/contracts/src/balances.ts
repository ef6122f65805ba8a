// The balances beside each player of the operator's list (GET /api/admin/users with a page): auth asks
// the game and payments once per page, for the page's ids, never once per row. Both routes are internal
// (no public prefix of the gateway is /internal), take the admin's own token forwarded by auth, and
// answer only for the ids asked.
import { z } from 'zod';
import { Euros } from './common.js';

export const INTERNAL_USER_BALANCES_PATH = '/internal/users/balances';
/** One page of the admin list at most (admin.ts' BALANCES_BATCH_MAX; not imported, admin.ts imports this file). */
export const BALANCES_BATCH_MAX = 100;

/** The ids of one page of the admin list. */
export const InternalBalancesRequest = z.strictObject({
  userIds: z
    .array(z.uuid({ error: 'userIds must be user ids' }))
    .max(BALANCES_BATCH_MAX, { error: `userIds must hold at most ${BALANCES_BATCH_MAX} ids` }),
});
export type InternalBalancesRequest = z.infer<typeof InternalBalancesRequest>;

/** The game's side: clicks the player can spend now (UNLIMITED_CLICKS with the pass or a privileged role). */
export const GameBalance = z.object({
  freeClicks: z.number().int().nonnegative(),
  purchasedClicks: z.number().int().nonnegative(),
  hasInfiniteClicks: z.boolean(),
});
export type GameBalance = z.infer<typeof GameBalance>;
/** Ids the game does not know are absent. */
export const GameBalances = z.object({ balances: z.record(z.uuid(), GameBalance) });
export type GameBalances = z.infer<typeof GameBalances>;

/** Payments' side, in euros: winnings owed (not yet collected), spent on packs, paid out to PayPal. */
export const MoneyBalance = z.object({ potEarned: Euros, spent: Euros, paidOut: Euros });
export type MoneyBalance = z.infer<typeof MoneyBalance>;
/** Ids with no money movement at all are absent (all zero). */
export const MoneyBalances = z.object({ balances: z.record(z.uuid(), MoneyBalance) });
export type MoneyBalances = z.infer<typeof MoneyBalances>;

/**
 * What the admin list shows per player: null where the service holding it did not answer in time (the
 * page still answers).
 */
export const AdminUserBalances = z.object({
  freeClicks: z.number().int().nonnegative().nullable(),
  hasInfiniteClicks: z.boolean().nullable(),
  potEarned: Euros.nullable(),
  spent: Euros.nullable(),
  paidOut: Euros.nullable(),
});
export type AdminUserBalances = z.infer<typeof AdminUserBalances>;
