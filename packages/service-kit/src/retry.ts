// One way to wait before trying again: capped exponential backoff with full jitter (a random wait
// between 0 and min(cap, base * 2^attempt)), so many callers failing together do not retry in step.
// Each call site names its policy here, so the waits of the system can be read in one place.

export interface RetryPolicy {
  /** The first attempt's ceiling, in ms. */
  baseMs: number;
  /** No wait is longer than this, in ms. */
  capMs: number;
}

export const RETRY_POLICIES = {
  /** A JetStream event whose handler failed: redelivered after a wait growing to a minute. */
  eventRedelivery: { baseMs: 1000, capMs: 60_000 },
} as const satisfies Record<string, RetryPolicy>;

/**
 * The wait before retry number `attempt` (0 for the first retry). `random` is injectable so a test can
 * pin it; it returns a number in [0, 1).
 */
export function backoffDelay(
  policy: RetryPolicy,
  attempt: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(policy.capMs, policy.baseMs * 2 ** Math.min(Math.max(attempt, 0), 30));
  return Math.floor(random() * ceiling);
}
