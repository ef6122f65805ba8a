// Load shedding at the front door for the click path, in front of Fastify (raw-listener.ts). A click
// first meets the early-retry rule (early-retry.ts), then waits for its turn to go to the game under
// service-kit's Admission: at most CLICK_MAX_IN_FLIGHT clicks in flight, the rest in a short queue. Once
// the path has had no room for CLICK_INTERVAL_MS (a standing queue, or a gateway short of CPU reading
// clicks late: not a burst), clicks that waited past CLICK_TARGET_MS get 503 and Retry-After. docs/performance.md states the rule.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Admission, admissionWaits, type Metrics, watchLoopLag } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import { clickMetrics } from './click-metrics.js';
import { refuseOverloaded } from './click-refusals.js';
import { isClick } from './click-route.js';
import type { TrustProxy } from './client-address.js';
import { EarlyRetries } from './early-retry.js';
import { inFrontOfFastify } from './raw-listener.js';

export { CLICK_PATH } from './click-route.js';
export { OVERLOADED_CODE, RETRY_TOO_SOON_CODE } from './click-refusals.js';

export interface ClickAdmissionOptions {
  /** Clicks in flight to the game at most; 0 turns admission off. */
  maxInFlight: number;
  /** Clicks waiting for their turn at most; past it a click is refused at once. */
  maxQueue: number;
  /** The wait a standing queue is cut back to (CoDel's target), in ms. */
  targetMs: number;
  /** How long the path must have had no room before clicks are shed (CoDel's interval), in ms. */
  intervalMs: number;
  /** Clients whose refusal the gateway remembers at most (early retries are refused at once); 0 forgets. */
  penaltyMaxKeys: number;
  /** The longest wait an early retry can earn, in seconds. */
  penaltyMaxSeconds: number;
  /** How long an early retry's refusal is held before it is sent, in ms (at most its wait); 0: at once. */
  penaltyDelayMs?: number;
  /** How the caller's address is read (TRUST_PROXY). */
  trustProxy: TrustProxy;
}

export function clickAdmission(app: FastifyInstance, options: ClickAdmissionOptions, metrics: Metrics): void {
  if (options.maxInFlight <= 0) return;
  // A gateway short of CPU reads clicks late: that wait counts as the queue's (service-kit's loop-lag.ts).
  const lag = watchLoopLag(10, undefined, options.targetMs);
  const admission = new Admission({
    maxInFlight: options.maxInFlight,
    maxQueue: options.maxQueue,
    targetMs: options.targetMs,
    intervalMs: options.intervalMs,
    priorDelay: lag.now,
    onTimeAt: lag.onTimeAt,
    onDecided: admissionWaits(
      metrics,
      'gateway_click_admission_wait_seconds',
      "A click's wait for its turn to go to the game (or for its refusal), by outcome",
    ),
  });
  const retryAfterS = admission.retryAfterSeconds();
  const count = clickMetrics(metrics, admission, () => earlyRetries);
  const earlyRetries =
    options.penaltyMaxKeys > 0
      ? new EarlyRetries(
          {
            maxKeys: options.penaltyMaxKeys,
            maxPenaltySeconds: options.penaltyMaxSeconds,
            delayMs: options.penaltyDelayMs ?? 0,
            trustProxy: options.trustProxy,
          },
          count.refusedEarly,
        )
      : undefined;
  /** Clicks let on to the game whose answer the early-retry rule reads (by their token). */
  const judged = new WeakMap<IncomingMessage, string>();

  inFrontOfFastify(app, (req: IncomingMessage, res: ServerResponse, next) => {
    if (!isClick(req.method ?? '', req.url)) return next();
    const verdict = earlyRetries?.judge(req, res) ?? { refused: false as const };
    if (verdict.refused) return;
    const token = verdict.token;
    const withdraw = admission.enter(
      (leave) => {
        res.once('close', leave);
        if (res.destroyed) return leave();
        if (token) judged.set(req, token);
        next();
      },
      () => {
        count.shed();
        earlyRetries?.shed(token, retryAfterS * 1000);
        refuseOverloaded(res, retryAfterS);
        // The request's (empty) body is left to Node, which discards it with the keep-alive connection intact.
        req.resume();
      },
    );
    // A client that goes away while its click waits gives up its place.
    res.once('close', withdraw);
  });
  app.addHook('onSend', (request, reply, payload, done) => {
    const token = judged.get(request.raw);
    if (token && earlyRetries) {
      judged.delete(request.raw);
      earlyRetries.answered(token, reply.statusCode, Number(reply.getHeader('retry-after')));
    }
    done(null, payload);
  });
  app.addHook('onClose', (_instance, done) => {
    earlyRetries?.close();
    lag.stop();
    admission.close();
    done();
  });
}
