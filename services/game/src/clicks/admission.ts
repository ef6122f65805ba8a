// The game's clicks take their turn under service-kit's Admission before they are queued for their
// batch: at most CLICK_QUEUE_IN_FLIGHT clicks in the engine (queued for their batch, or in one), the rest
// waiting in a queue of at most CLICK_QUEUE_MAX. A click is refused with 503 and Retry-After only when
// it waited past CLICK_QUEUE_TARGET_MS after the engine had no room for CLICK_QUEUE_INTERVAL_MS (a
// standing queue, not a burst), or when the queue is full: nothing was counted, the page retries later.
// The engine itself is unchanged: the turn wraps the one call that queues a click.
import { ERROR_CODE, errorBody, errorMessage } from '@omc/contracts';
import { Admission, admissionWaits, type Metrics } from '@omc/service-kit';
import type { FastifyReply } from 'fastify';

export const OVERLOADED_CODE = ERROR_CODE.OVERLOADED;

export interface ClickQueueOptions {
  /** Clicks in the engine at most; 0 turns admission off (the queue unbounded). */
  maxInFlight: number;
  /** Clicks waiting for their turn at most. */
  max: number;
  /** The wait a standing queue is cut back to (CoDel's target), in ms. */
  targetMs: number;
  /** How long the path must have had no room before clicks are shed (CoDel's interval), in ms. */
  intervalMs: number;
}

export interface ClickGate {
  /** Runs `work` in its turn; if the click is refused, answers the refusal on `reply` and returns undefined. */
  run<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T | undefined>;
  close(): void;
}

export function clickGate(options: ClickQueueOptions, metrics?: Metrics): ClickGate {
  if (options.maxInFlight <= 0) return { run: (_reply, work) => work(), close: () => undefined };
  const admission = new Admission({
    maxInFlight: options.maxInFlight,
    maxQueue: options.max,
    targetMs: options.targetMs,
    intervalMs: options.intervalMs,
    ...(metrics
      ? {
          onDecided: admissionWaits(
            metrics,
            'game_click_admission_wait_seconds',
            "A click's wait for its turn in the engine (or for its refusal), by outcome",
          ),
        }
      : {}),
  });
  const shed = metrics?.counter(
    'game_clicks_shed_total',
    'Clicks refused (503) because they waited past the target in a standing queue, or the queue was full',
  );
  metrics?.gauge('game_click_queue', 'Clicks waiting for their turn in the engine', [], function () {
    this.set(admission.stats().queued);
  });
  metrics?.gauge('game_click_queue_limit', 'Clicks the game lets in the engine at once', [], function () {
    this.set(admission.stats().limit);
  });
  const message = errorMessage(OVERLOADED_CODE);
  return {
    async run(reply, work) {
      const outcome = await admission.run(async () => ({ value: await work() }));
      if (outcome !== undefined) return outcome.value;
      shed?.inc();
      void reply
        .code(503)
        .header('retry-after', String(admission.retryAfterSeconds()))
        .header('cache-control', 'no-store')
        .send(errorBody(message, { code: OVERLOADED_CODE, requestId: reply.request.id }));
      return undefined;
    },
    close: () => admission.close(),
  };
}
