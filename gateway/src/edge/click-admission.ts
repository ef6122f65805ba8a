// Load shedding at the front door for the click path. Clicks in flight to the game are bounded by an
// adaptive limit (service-kit Admission: a latency target on the click's round trip and on this
// process's event loop); a click over the limit is refused before anything else is done for it: 503,
// Retry-After, the usual error body, a few microseconds of work. The clicks that are let in keep their
// latency, and a refused player's page backs off and retries (docs/performance.md).
import { errorBody } from '@omc/contracts';
import { Admission, type Metrics } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';

export const CLICK_PATH = '/api/game/click';
export const OVERLOADED_CODE = 'OVERLOADED';

export interface ClickAdmissionOptions {
  /** Round-trip latency (gateway → game → gateway) an admitted click should stay under. */
  targetMs: number;
  /** Clicks in flight to the game at most; 0 turns shedding off. */
  maxInFlight: number;
}

const isClick = (method: string, url: string | undefined) =>
  method === 'POST' &&
  url !== undefined &&
  url.startsWith(CLICK_PATH) &&
  (url.length === CLICK_PATH.length || url[CLICK_PATH.length] === '?');

export function clickAdmission(app: FastifyInstance, options: ClickAdmissionOptions, metrics: Metrics): void {
  if (options.maxInFlight <= 0) return;
  const admission = new Admission({
    targetMs: options.targetMs,
    maxInFlight: options.maxInFlight,
    watchEventLoop: true,
  });
  const refused = metrics.counter(
    'gateway_clicks_shed_total',
    'Clicks refused at once (503) because the click path was saturated',
  );
  metrics.gauge(
    'gateway_click_admission_limit',
    'Clicks the gateway lets in flight to the game now',
    [],
    function () {
      this.set(admission.stats().limit);
    },
  );
  const body = JSON.stringify(
    errorBody('The game is very busy right now; your click was not counted, try again in a moment', {
      code: OVERLOADED_CODE,
    }),
  );
  const retryAfter = String(admission.retryAfterSeconds());

  app.addHook('onRequest', (request, reply, done) => {
    if (!isClick(request.method, request.raw.url)) return done();
    const startedAt = admission.enter();
    if (startedAt === undefined) {
      refused.inc();
      void reply
        .code(503)
        .header('retry-after', retryAfter)
        .header('cache-control', 'no-store')
        .type('application/json')
        .send(body);
      return;
    }
    reply.raw.once('close', () => admission.leave(startedAt));
    done();
  });
  app.addHook('onClose', (_instance, done) => {
    admission.close();
    done();
  });
}
