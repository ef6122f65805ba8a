// When the game is flooded it refuses clicks at once (503 with Retry-After) rather than making everyone
// wait. A refused click is not an error to show: the page says calmly that the game is busy and sends
// the click again after a pause that grows with each refusal (exponential, with jitter so that
// thousands of pages do not come back in the same instant), a few times before giving up quietly.
// The pause is never shorter than Retry-After: the gateway refuses a click sent before it (429,
// RETRY_TOO_SOON, with its own longer Retry-After), and such a refusal is waited out the same way.
import { ApiClientError, errorCode } from '../../api/http';

export const BUSY_ATTEMPTS = 4;
const MAX_DELAY_MS = 15_000;

/** A refusal because the server is saturated, or because the click came before its Retry-After. */
export function isBusyRefusal(error: unknown): error is ApiClientError {
  return (
    error instanceof ApiClientError && (error.status === 503 || error.code === errorCode('RETRY_TOO_SOON'))
  );
}

/**
 * The pause before attempt `attempt` (1 = the first retry): Retry-After doubled per refusal, jittered
 * upwards (up to half as long again), at most 15 s, and never shorter than Retry-After itself.
 */
export function busyDelayMs(attempt: number, retryAfterS: number | undefined, random = Math.random): number {
  const floor = Math.max(1, retryAfterS ?? 1) * 1000;
  const base = floor * 2 ** (attempt - 1);
  return Math.max(floor, Math.min(MAX_DELAY_MS, Math.round(base * (1 + random() * 0.5))));
}

/** Runs `send`; while it is refused as busy, reports busy, waits and tries again (at most BUSY_ATTEMPTS). */
export async function withBusyRetry<T>(
  send: () => Promise<T>,
  onBusy: (busy: boolean) => void,
  sleep: (ms: number) => Promise<void> = (ms) => new Promise((r) => setTimeout(r, ms)),
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      const result = await send();
      if (attempt > 1) onBusy(false);
      return result;
    } catch (error) {
      if (!isBusyRefusal(error) || attempt >= BUSY_ATTEMPTS) {
        if (attempt > 1) onBusy(false);
        throw error;
      }
      onBusy(true);
      await sleep(busyDelayMs(attempt, error.retryAfterS));
    }
  }
}
