// HTTP bodies of services/game (docs/architecture.md).
import { z } from 'zod';
import { Euros, Role, RoleVersion } from './common.js';
import { PackView } from './packs.js';

/**
 * The state every screen shows, the same for everyone, guests included: the original client formats `pot` as
 * soon as a guest signs in, and hiding the pot and names from guests is a rule of the interface.
 */
export const GameState = z.object({
  globalClicks: z.number().int().nonnegative(),
  pot: Euros,
  lastWinner: z.string().nullable(),
  lastClickUser: z.string().nullable(),
});
export type GameState = z.infer<typeof GameState>;

export const GameStateResponse = z.object({ gameState: GameState });
export type GameStateResponse = z.infer<typeof GameStateResponse>;

/**
 * The click's ordinal in its round and the clicker's balance after it: everything of the profile a click
 * can change, so the web app reads no profile after a click (purchasedClicks and hasInfiniteClicks are
 * absent from older servers).
 */
export const ClickResponse = z.object({
  globalClicks: z.number().int().nonnegative(),
  freeClicks: z.number().int().nonnegative(),
  purchasedClicks: z.number().int().nonnegative().optional(),
  hasInfiniteClicks: z.boolean().optional(),
  round: z.number().int().positive().optional(),
  milestone: z.object({ at: z.number().int(), freeClicks: z.number().int() }).optional(),
  won: z.boolean().optional(),
});
export type ClickResponse = z.infer<typeof ClickResponse>;

export const Milestone = z.union([
  z.object({ at: z.number().int().positive(), freeClicks: z.number().int().positive() }),
  z.object({ at: z.number().int().positive(), winsPot: z.literal(true) }),
]);
export type Milestone = z.infer<typeof Milestone>;

export const GameRules = z.object({
  roundTarget: z.number().int().positive(),
  milestones: z.array(Milestone),
  packs: z.array(PackView),
});
export type GameRules = z.infer<typeof GameRules>;

/** The game's part of the profile, for the caller itself. */
export const GameProfile = z.object({
  freeClicks: z.number().int().nonnegative(),
  purchasedClicks: z.number().int().nonnegative(),
  hasInfiniteClicks: z.boolean(),
});
export type GameProfile = z.infer<typeof GameProfile>;

export const Winner = z.object({
  _id: z.string(),
  userId: z.object({ username: z.string() }).nullable(),
  pot: Euros,
  createdAt: z.iso.datetime({ offset: true }),
  round: z.number().int().positive().optional(),
});
export type Winner = z.infer<typeof Winner>;

export const WinnersQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  /** Opaque cursor from the previous page's nextCursor. */
  cursor: z.string().max(200).optional(),
});
export const WinnersResponse = z.object({
  winners: z.array(Winner),
  nextCursor: z.string().nullable().optional(),
});
export type WinnersResponse = z.infer<typeof WinnersResponse>;

/**
 * Auth tells the game of a role change before updateRole answers (read-your-writes). `roleVersion` is the
 * change's place in auth's own sequence, the same as its `auth.user.role_changed.v1` event's: the game
 * applies a change only when its version is higher than the one it holds, so the event that follows is a
 * no-op and an older one never wins. No clock travels: a caller's date (`changedAt`) is refused.
 */
export const internalUserRolePath = (userId: string) => `/internal/users/${encodeURIComponent(userId)}/role`;
export const InternalRoleChange = z.strictObject({ role: Role, roleVersion: RoleVersion });
export type InternalRoleChange = z.infer<typeof InternalRoleChange>;
/** The role the game holds for the user after the call (the newer of the two changes). */
export const InternalRoleApplied = z.object({ role: Role });

/**
 * Auth tells the game of a suspension or a restore before the admin's call answers, so the player's very
 * next click is refused (403, code ACCOUNT_SUSPENDED, the operator's reason). Ordered like the
 * `auth.user.access_changed.v1` event it precedes: by the account's security version after the change.
 */
export const internalUserSuspensionPath = (userId: string) =>
  `/internal/users/${encodeURIComponent(userId)}/suspension`;
export const InternalSuspensionChange = z.strictObject({
  suspended: z.boolean(),
  reason: z.string().max(500).nullable(),
  securityVersion: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
});
export type InternalSuspensionChange = z.infer<typeof InternalSuspensionChange>;
/** Whether the game holds the user suspended after the call (the newer of the two changes). */
export const InternalSuspensionApplied = z.object({ suspended: z.boolean() });
