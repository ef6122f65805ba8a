// The scripts as ioredis commands (EVALSHA, falling back to EVAL once after a Redis restart).
import type { Redis } from 'ioredis';
import {
  APPLY_PURCHASE,
  CLICK_BATCH,
  LOAD_USER,
  RESTORE_STATE,
  JOURNAL_STEP,
  UPDATE_USER_META,
} from './scripts.js';

type Args = (string | number)[];

export interface GameRedis {
  clickBatch(keys: string[], args: Args): Promise<(number | string)[]>;
  applyPurchase(keys: string[], args: Args): Promise<number[]>;
  loadUser(key: string, args: Args): Promise<number>;
  updateUserMeta(keys: string[], args: Args): Promise<number>;
  restoreState(key: string, args: Args): Promise<number>;
  journalStep(key: string, args: Args): Promise<(string | number)[]>;
}

export function gameRedis(redis: Redis): GameRedis {
  const scripts = {
    gameClickBatch: CLICK_BATCH,
    gameApplyPurchase: APPLY_PURCHASE,
    gameLoadUser: LOAD_USER,
    gameUpdateUserMeta: UPDATE_USER_META,
    gameRestoreState: RESTORE_STATE,
    gameJournalStep: JOURNAL_STEP,
  };
  for (const [name, lua] of Object.entries(scripts)) {
    if (!(name in redis)) redis.defineCommand(name, { lua });
  }
  const r = redis as any;
  return {
    clickBatch: (keys, args) => r.gameClickBatch(keys.length, ...keys, ...args),
    applyPurchase: (keys, args) => r.gameApplyPurchase(keys.length, ...keys, ...args),
    loadUser: (key, args) => r.gameLoadUser(1, key, ...args),
    updateUserMeta: (keys, args) => r.gameUpdateUserMeta(keys.length, ...keys, ...args),
    restoreState: (key, args) => r.gameRestoreState(1, key, ...args),
    journalStep: (key, args) => r.gameJournalStep(1, key, ...args),
  };
}
