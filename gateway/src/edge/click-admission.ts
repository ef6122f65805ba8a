// Load shedding at the front door for the click path. Clicks in flight to the game are bounded by an
// adaptive limit (service-kit Admission: a latency target on the click's round trip and on this
// process's event loop); a click over the limit is refused before anything else is done for it, in
// front of Fastify: 503, Retry-After, the usual error body and the API's security headers. The clicks that are let in keep their
// latency, and a refused player's page backs off and retries (docs/performance.md).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody } from '@omc/contracts';
import { Admission, type Metrics } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import { API_SECURITY_HEADERS } from './security-headers.js';

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
  const headers: Record<string, string | number> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'retry-after': String(admission.retryAfterSeconds()),
    'cache-control': 'no-store',
    ...Object.fromEntries(API_SECURITY_HEADERS),
  };

  // The decision is taken in front of Fastify, on the raw request: a refusal then costs Node's HTTP
  // parsing and one small write, not a request object, hooks, logging and metrics (a third of a
  // proxied click's CPU when it went through Fastify's hooks; docs/performance.md).
  const server = app.server;
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  const fastifyHandler = handlers[0];
  if (handlers.length !== 1 || !fastifyHandler) throw new Error('the gateway expects one request handler');
  server.removeListener('request', fastifyHandler);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (isClick(req.method ?? '', req.url)) {
      const startedAt = admission.enter();
      if (startedAt === undefined) {
        refused.inc();
        res.writeHead(503, headers);
        res.end(body);
        // The request's (empty) body is left to Node, which discards it with the keep-alive connection intact.
        req.resume();
        return;
      }
      res.once('close', () => admission.leave(startedAt));
    }
    fastifyHandler(req, res);
  });
  app.addHook('onClose', (_instance, done) => {
    admission.close();
    done();
  });
}
