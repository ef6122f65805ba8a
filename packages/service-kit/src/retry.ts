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
  /** A durable consumer whose pull broke (NATS restarting, a stream recreated): pull again. */
  consumerRestart: { baseMs: 250, capMs: 5_000 },
  /** realtime asking the game for the state until it answers once (the game may start after it). */
  stateRequest: { baseMs: 500, capMs: 5_000 },
  /** A PayPal payout sent again with the same sender_batch_id after an unknown outcome. */
  payoutResend: { baseMs: 500, capMs: 10_000 },
  /** A round's win written to Postgres again after a failure (the journal writes it if all fail). */
  winWrite: { baseMs: 50, capMs: 2_000 },
  /** A checkout waiting for the same idempotency key's payment, in flight on another request. */
  checkoutInFlight: { baseMs: 25, capMs: 200 },
  /** A role change for a user the game has not heard of yet (the user's events are on their way). */
  unknownUser: { baseMs: 25, capMs: 200 },
  /** An account mail the SMTP server refused or did not answer (bounds from MAIL_RETRY_BASE_MS/_MAX_MS). */
  mailResend: { baseMs: 2_000, capMs: 600_000 },
  /** An outbox asked to drain (tests, shutdown): how often its backlog is read again. */
  outboxDrain: { baseMs: 10, capMs: 100 },
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

/** Resolves after `ms`, or at once when `signal` aborts. A timer like any other. */
export function pause(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}

/** Waits out retry number `attempt` of `policy` (see backoffDelay). */
export function backoff(policy: RetryPolicy, attempt: number, signal?: AbortSignal): Promise<void> {
  return pause(backoffDelay(policy, attempt), signal);
}
