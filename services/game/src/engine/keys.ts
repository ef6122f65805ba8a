// Every Redis key of the game shares one hash tag, so each script touches one slot and the game is
// ready for Redis Cluster without change.
export const TAG = '{omc:game}';

export const KEYS = {
  /** Hash: round, clicks, pot, last clicker and last winner (ids and names), journal epoch and seq. */
  state: `${TAG}:state`,
  /** List: the write-behind journal, one "epoch:seq:json" entry per batch, flushed to Postgres. */
  journal: `${TAG}:journal`,
  /** Hash: purchase id -> round it was applied to (idempotency of purchase events in Redis). */
  purchases: `${TAG}:purchases`,
  /** String: the journal flusher's lock (one flusher at a time across instances). */
  flushLock: `${TAG}:flush-lock`,
  /**
   * Hash: user id -> JSON record { ok (loaded), v (version), role, name, del, g (granted), pr (round of
   * the purchased clicks), p (purchased), pass (round of the pass), tb/tt (rate-limit bucket) }.
   */
  users: `${TAG}:users`,
} as const;
