// The game's click queue is bounded: clicks waiting for their batch (and the batch in Redis) are held
// under an adaptive limit (service-kit Admission, a latency target on each click's time from arrival
// to outcome, and on the event loop), never more than CLICK_QUEUE_MAX. A click over the limit is refused
// at once with 503 and Retry-After: nothing was counted, the player's page retries after a pause. The
// engine itself is unchanged: the limit wraps the one call that queues a click.
import { errorBody } from '@omc/contracts';
import { Admission, type Metrics } from '@omc/service-kit';
import type { FastifyReply } from 'fastify';

export const OVERLOADED_CODE = 'OVERLOADED';

export interface ClickQueueOptions {
  /** Clicks queued or in a batch at most; 0 turns the bound (and shedding) off. */
  max: number;
  /** The time from a click's arrival to its outcome that the adaptive limit holds to, in ms. */
  targetMs: number;
}

export interface ClickGate {
  /** Runs `work` if the click is admitted; otherwise answers the refusal on `reply` and returns undefined. */
  run<T>(reply: FastifyReply, work: () => Promise<T>): Promise<T | undefined>;
  close(): void;
}

export function clickGate(options: ClickQueueOptions, metrics?: Metrics): ClickGate {
  if (options.max <= 0) return { run: (_reply, work) => work(), close: () => undefined };
  const admission = new Admission({
    targetMs: options.targetMs,
    maxInFlight: options.max,
    watchEventLoop: true,
  });
  const shed = metrics?.counter(
    'game_clicks_shed_total',
    'Clicks refused at once (503) because the click queue was at its limit',
  );
  metrics?.gauge('game_click_queue_limit', 'Clicks the game lets queue now (adaptive)', [], function () {
    this.set(admission.stats().limit);
  });
  const message = 'The game is very busy right now; your click was not counted, try again in a moment';
  return {
    async run(reply, work) {
      const startedAt = admission.enter();
      if (startedAt === undefined) {
        shed?.inc();
        void reply
          .code(503)
          .header('retry-after', String(admission.retryAfterSeconds()))
          .header('cache-control', 'no-store')
          .send(errorBody(message, { code: OVERLOADED_CODE, requestId: reply.request.id }));
        return undefined;
      }
      try {
        return await work();
      } finally {
        admission.leave(startedAt);
      }
    },
    close: () => admission.close(),
  };
}
