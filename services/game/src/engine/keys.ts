// Every Redis key of the game shares one hash tag, so each script touches one slot and the game is
// ready for Redis Cluster without change.
export const TAG = '{omc:game}';

/**
 * One hash holds the round state and every user, so a click batch reads all it needs with one HMGET and
 * writes it back with one HSET. State fields have short fixed names (round, clicks, pot, lcu, lcn, lwu,
 * lwn, epoch, seq, fseq, flk: the journal flusher's lock) and journal entries (j:<seq>); every other field is a user id whose value is the user's JSON record { ok (loaded),
 * v (version), role, name, del, g (granted), pr (round of the purchased clicks), p (purchased), pass
 * (round of the pass), tb/tt (rate-limit bucket) }.
 */
const GAME = `${TAG}:game`;

export const KEYS = {
  state: GAME,
  users: GAME,
  /**
   * The write-behind journal lives in the same hash: field j:<seq> = "epoch:seq:json", one per batch or
   * purchase; fseq is the last one flushed to Postgres and removed.
   */
  journal: GAME,
  /** Hash: purchase id -> round it was applied to (idempotency of purchase events in Redis). */
  purchases: `${TAG}:purchases`,
  /** String "tokens:ms": one client address's click budget; expires once it would be full again. */
  addressBucket: (address: string) => `${TAG}:ipclicks:${address}`,
} as const;
