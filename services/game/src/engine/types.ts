// What the engine gives the routes, the state publisher and the service's wiring, and what it takes.
import type { WinRecord } from './journal-types.js';

export interface HotState {
  round: number;
  globalClicks: number;
  potCents: number;
  lastClickUser: string | null;
  lastWinner: string | null;
}

export type ClickOutcome =
  | {
      accepted: true;
      globalClicks: number;
      round: number;
      /** Spendable after the click (UNLIMITED_CLICKS for a privileged clicker or a pass holder). */
      freeClicks: number;
      /** The part of freeClicks bought for this round. */
      purchasedClicks: number;
      hasInfiniteClicks: boolean;
      reward: number;
      won: boolean;
    }
  | {
      accepted: false;
      reason:
        | 'no_clicks'
        | 'rate_limited'
        | 'address_rate_limited'
        | 'unknown_user'
        | 'deleted_user'
        | 'suspended'
        | 'stale_token';
    };

export interface UserView {
  freeClicks: number;
  purchasedClicks: number;
  hasInfiniteClicks: boolean;
}

/**
 * Loads the users a Redis step found missing (players/users-in-play.ts): the click path and purchases
 * take it, so the engine holds no users of its own.
 */
export interface UserLoader {
  /** Loads into Redis the users it lacks; returns the ids Postgres does not know either. */
  ensure(ids: string[], fresh?: boolean): Promise<Set<string>>;
}

export interface EngineHooks {
  onBatch?: (size: number) => void;
  /** A batch's oldest click waited this long in the queue for it (ms). */
  onBatchWait?: (waitedMs: number) => void;
  /** A batch's script call took this long, Redis and the way there and back (ms). */
  onBatchRun?: (ms: number) => void;
  onOutcome?: (outcome: string, count: number) => void;
  onWin?: (win: WinRecord) => void;
  onWinPersisted?: () => void;
  /** How the closing click's wait for its win's write ended (a write outcome, or `timeout`). */
  onWinAnswer?: (ended: string) => void;
  /** The round state was rebuilt from Postgres: Redis had lost it, or was found behind Postgres. */
  onRebuilt?: (cause: 'missing' | 'stale') => void;
  /**
   * Between a purchase's or take-back's Redis step and its Postgres record, under the rebuild fence
   * (tests drive a rebuild there).
   */
  beforeStateRecord?: () => Promise<void> | void;
  /** The state changed; `state` is the state right after the change when the step returned it. */
  onStateChanged?: (state?: HotState) => void;
}
