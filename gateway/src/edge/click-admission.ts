// Load shedding at the front door for the click path. Clicks in flight to the game are bounded by an
// adaptive limit (service-kit Admission: a latency target on the click's round trip and on this
// process's event loop); a click over the limit is refused before anything else is done for it, in
// front of Fastify: 503, Retry-After, the usual error body and the API's security headers. The clicks that are let in keep their
// latency, and a refused player's page backs off and retries (docs/performance.md).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorBody } from '@omc/contracts';
import { Admission, type Metrics } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import { clientAddress, trustFunction, type TrustProxy } from './client-address.js';
import { addressKey, RetryPenalty, tokenKey } from './retry-penalty.js';
import { API_SECURITY_HEADERS } from './security-headers.js';

export const CLICK_PATH = '/api/game/click';
export const OVERLOADED_CODE = 'OVERLOADED';
export const RETRY_TOO_SOON_CODE = 'RETRY_TOO_SOON';

export interface ClickAdmissionOptions {
  /** Round-trip latency (gateway → game → gateway) an admitted click should stay under. */
  targetMs: number;
  /** Clicks in flight to the game at most; 0 turns shedding off. */
  maxInFlight: number;
  /** Clients whose refusal the gateway remembers at most (early retries are refused at once); 0 forgets. */
  penaltyMaxKeys: number;
  /** The longest wait repeated early retries can earn, in seconds. */
  penaltyMaxSeconds: number;
  /** How the caller's address is read (TRUST_PROXY). */
  trustProxy: TrustProxy;
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
  const refusedEarly = metrics.counter(
    'gateway_clicks_retry_too_soon_total',
    'Clicks refused at once (429) because their client retried before the Retry-After it was given',
  );
  const penalty =
    options.penaltyMaxKeys > 0
      ? new RetryPenalty({ maxKeys: options.penaltyMaxKeys, maxPenaltyMs: options.penaltyMaxSeconds * 1000 })
      : undefined;
  const trust = trustFunction(options.trustProxy);
  metrics.gauge(
    'gateway_click_penalised_clients',
    'Clients this gateway remembers as told to retry later (bounded by CLICK_PENALTY_MAX_KEYS)',
    [],
    function () {
      this.set(penalty?.size ?? 0);
    },
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
  const earlyBody = JSON.stringify(
    errorBody('Too soon: wait for the Retry-After you were given before clicking again', {
      code: RETRY_TOO_SOON_CODE,
    }),
  );
  const earlyHeaders = (waitMs: number): Record<string, string | number> => ({
    ...headers,
    'content-length': Buffer.byteLength(earlyBody),
    'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))),
  });
  const retryAfterMs = admission.retryAfterSeconds() * 1000;

  const server = app.server;
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  const fastifyHandler = handlers[0];
  if (handlers.length !== 1 || !fastifyHandler) throw new Error('the gateway expects one request handler');
  server.removeListener('request', fastifyHandler);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (isClick(req.method ?? '', req.url)) {
      // A client that was told to come back later and did not wait is refused before anything else:
      // no admission slot, no Fastify, no Redis, no body read. Its wait grows with each early retry.
      let address: string | undefined;
      let token: string | undefined;
      if (penalty) {
        address = addressKey(clientAddress(req, trust));
        token = tokenKey(req.headers.authorization);
        const now = Date.now();
        const wait = penalty.early(address, token, now);
        if (wait > 0) {
          refusedEarly.inc();
          res.writeHead(429, earlyHeaders(wait));
          res.end(earlyBody);
          req.resume();
          return;
        }
      }
      const startedAt = admission.enter();
      if (startedAt === undefined) {
        refused.inc();
        if (penalty && address) penalty.refused(address, token, retryAfterMs, Date.now());
        res.writeHead(503, headers);
        res.end(body);
        // The request's (empty) body is left to Node, which discards it with the keep-alive connection intact.
        req.resume();
        return;
      }
      res.once('close', () => {
        admission.leave(startedAt);
        if (penalty && res.statusCode === 200) penalty.accepted(token);
      });
    }
    fastifyHandler(req, res);
  });
  app.addHook('onClose', (_instance, done) => {
    admission.close();
    done();
  });
}
