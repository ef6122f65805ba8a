// The game's Lua scripts as ioredis commands (EVALSHA, falling back to EVAL once after a Redis restart),
// typed for a connection and for a pipeline alike, each call's reply decoded by its script's decoder.
import type { ChainableCommander, Redis, Result } from 'ioredis';
import { CLICK_BATCH, decodeClickBatchReply, type ClickBatchReply } from './redis/click-batch.js';
import { decodeJournalStepReply, JOURNAL_STEP, type JournalStepReply } from './redis/journal-step.js';
import {
  APPLY_PURCHASE,
  decodeApplyPurchaseReply,
  type ApplyPurchaseReply,
} from '../purchases/purchase.scripts.js';
import { decodeRestoreStateReply, RESTORE_STATE } from './redis/restore-state.js';
import {
  decodeTakeBackReply,
  TAKE_BACK_PURCHASE,
  type TakeBackReply,
} from '../purchases/take-back.scripts.js';
import {
  decodeChangedReply,
  decodeEvictIdleUsersReply,
  decodeGrantSignupReply,
  EVICT_IDLE_USERS,
  GRANT_SIGNUP_CLICKS,
  LOAD_USER,
  UPDATE_USER_META,
  type EvictIdleUsersReply,
  type GrantSignupReply,
} from '../players/players.scripts.js';

type Arg = string | number;

// ioredis' documented way to type commands made with defineCommand (a connection and a pipeline alike).
declare module 'ioredis' {
  interface RedisCommander<Context> {
    gameClickBatch(numKeys: number, ...keysAndArgs: Arg[]): Result<(number | string)[], Context>;
    gameApplyPurchase(numKeys: number, ...keysAndArgs: Arg[]): Result<number[], Context>;
    gameTakeBackPurchase(numKeys: number, ...keysAndArgs: Arg[]): Result<number[], Context>;
    gameLoadUser(numKeys: number, ...keysAndArgs: Arg[]): Result<number, Context>;
    gameGrantSignupClicks(numKeys: number, ...keysAndArgs: Arg[]): Result<number, Context>;
    gameUpdateUserMeta(numKeys: number, ...keysAndArgs: Arg[]): Result<number, Context>;
    gameRestoreState(numKeys: number, ...keysAndArgs: Arg[]): Result<number, Context>;
    gameJournalStep(numKeys: number, ...keysAndArgs: Arg[]): Result<(string | number)[], Context>;
    gameEvictIdleUsers(numKeys: number, ...keysAndArgs: Arg[]): Result<(string | number)[], Context>;
  }
}

const SCRIPTS = {
  gameClickBatch: CLICK_BATCH,
  gameApplyPurchase: APPLY_PURCHASE,
  gameTakeBackPurchase: TAKE_BACK_PURCHASE,
  gameLoadUser: LOAD_USER,
  gameGrantSignupClicks: GRANT_SIGNUP_CLICKS,
  gameUpdateUserMeta: UPDATE_USER_META,
  gameRestoreState: RESTORE_STATE,
  gameJournalStep: JOURNAL_STEP,
  gameEvictIdleUsers: EVICT_IDLE_USERS,
} as const;

/** A user's figures from Postgres, as LOAD_USER takes them. */
export interface UserLoad {
  id: string;
  version: number;
  role: string;
  name: string | null;
  deleted: boolean;
  granted: number;
  purchasedRound: number;
  purchased: number;
  passRound: number;
  signupGranted: boolean;
  /** The operator's reason when suspended; null when not. */
  suspendedReason: string | null;
  /** auth's security version of the account (0 until the first change arrives). */
  securityVersion: number;
}

export interface GameRedis {
  /** KEYS: game hash, then address buckets. ARGV: see CLICK_BATCH. */
  clickBatch(keys: string[], args: Arg[], clickCount: number): Promise<ClickBatchReply>;
  /** KEYS: game hash, purchases. */
  applyPurchase(keys: string[], args: Arg[]): Promise<ApplyPurchaseReply>;
  /** KEYS: game hash, purchases. ARGV: see TAKE_BACK_PURCHASE. */
  takeBackPurchase(keys: string[], args: Arg[]): Promise<TakeBackReply>;
  /** Loads users in one round trip (a pipeline); true for each record that changed. */
  loadUsers(hash: string, users: UserLoad[], now: number): Promise<boolean[]>;
  updateUserMeta(hash: string, args: Arg[]): Promise<boolean>;
  /** ARGV: userId, clicks (GRANT_SIGNUP_CLICKS). */
  grantSignupClicks(hash: string, userId: string, clicks: number): Promise<GrantSignupReply>;
  restoreState(keys: [game: string, purchases: string], args: Arg[]): Promise<boolean>;
  journalStep(hash: string, args: Arg[]): Promise<JournalStepReply>;
  evictIdleUsers(hash: string, cursor: string, count: number, cutoff: number): Promise<EvictIdleUsersReply>;
  /** Redis's clock, in ms. */
  time(): Promise<number>;
}

function loadUserArgs(user: UserLoad, now: number): Arg[] {
  return [
    user.id,
    user.version,
    user.role,
    user.name ?? '',
    user.deleted ? 1 : 0,
    user.granted,
    user.purchasedRound,
    user.purchased,
    user.passRound,
    now,
    user.signupGranted ? 1 : 0,
    user.suspendedReason === null ? 0 : 1,
    user.suspendedReason ?? '',
    user.securityVersion,
  ];
}

export function gameRedis(redis: Redis): GameRedis {
  for (const [name, lua] of Object.entries(SCRIPTS)) {
    if (!(name in redis)) redis.defineCommand(name, { lua });
  }
  return {
    async time() {
      const [seconds, micros] = await redis.time();
      return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
    },
    clickBatch: async (keys, args, clickCount) =>
      decodeClickBatchReply(await redis.gameClickBatch(keys.length, ...keys, ...args), clickCount),
    applyPurchase: async (keys, args) =>
      decodeApplyPurchaseReply(await redis.gameApplyPurchase(keys.length, ...keys, ...args)),
    takeBackPurchase: async (keys, args) =>
      decodeTakeBackReply(await redis.gameTakeBackPurchase(keys.length, ...keys, ...args)),
    async loadUsers(hash, users, now) {
      if (users.length === 0) return [];
      const pipeline: ChainableCommander = redis.pipeline();
      for (const user of users) pipeline.gameLoadUser(1, hash, ...loadUserArgs(user, now));
      const results = (await pipeline.exec()) ?? [];
      return results.map(([error, reply]) => {
        if (error) throw error;
        return decodeChangedReply(reply as number);
      });
    },
    updateUserMeta: async (hash, args) =>
      decodeChangedReply(await redis.gameUpdateUserMeta(1, hash, ...args)),
    grantSignupClicks: async (hash, userId, clicks) =>
      decodeGrantSignupReply(await redis.gameGrantSignupClicks(1, hash, userId, clicks)),
    restoreState: async (keys, args) =>
      decodeRestoreStateReply(await redis.gameRestoreState(keys.length, ...keys, ...args)),
    journalStep: async (hash, args) => decodeJournalStepReply(await redis.gameJournalStep(1, hash, ...args)),
    evictIdleUsers: async (hash, cursor, count, cutoff) =>
      decodeEvictIdleUsersReply(await redis.gameEvictIdleUsers(1, hash, cursor, count, cutoff)),
  };
}
