// Every Redis key of the game shares one hash tag, so each script touches one slot and the game is
// ready for Redis Cluster without change. docs/game.md shows every key and field in a table.
export const TAG = '{omc:game}';

export const KEYS = {
  /**
   * The game hash: the round state (round, clicks, pot, epoch, lcu/lcn, lwu/lwn), the write-behind
   * journal (j:<seq> = "epoch:seq:json", seq, fseq, flk) and the users in play (field = user id, value =
   * the JSON record of redis/user-record.ts). One hash, so a click batch reads all it needs with one
   * HMGET and writes it back with one HSET; idle users are evicted once flushed (users.ts, EVICT_IDLE_USERS).
   */
  game: `${TAG}:game`,
  /** Hash: purchase id -> round it was applied to (idempotency of purchase events in Redis). */
  purchases: `${TAG}:purchases`,
  /** String "tokens:ms": one client address's click budget; expires once it would be full again. */
  addressBucket: (address: string) => `${TAG}:ipclicks:${address}`,
} as const;
