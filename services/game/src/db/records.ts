// What the game records of a win, a purchase and a take-back: the shapes the Redis scripts write into
// the journal (engine/journal-types.ts) and the repositories write to Postgres.

export interface WinRecord {
  round: number;
  userId: string;
  username: string;
  potCents: number;
  clicks: number;
  /** Milliseconds since the epoch. */
  at: number;
  /** The Redis epoch that decided it (absent in entries written before the fence). */
  epoch?: string;
}

export interface PurchaseRecord {
  id: string;
  userId: string;
  round: number;
  clicks: number;
  unlimited: boolean;
  potShareCents: number;
  packId: string;
}

/** What a refunded purchase's take-back removed (purchases/take-back.scripts.ts). */
export interface TakeBackRecord {
  id: string;
  userId: string;
  round: number;
  roundInPlay: boolean;
  clicks: number;
  pass: boolean;
  potCents: number;
}
