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
  /** How long an early retry's refusal is held before it is sent, in ms (at most its wait); 0: at once. */
  penaltyDelayMs?: number;
  /** How the caller's address is read (TRUST_PROXY). */
  trustProxy: TrustProxy;
}

const isClick = (method: string, url: string | undefined) =>
  method === 'POST' &&
  url !== undefined &&
  url.startsWith(CLICK_PATH) &&
  (url.length === CLICK_PATH.length || url[CLICK_PATH.length] === '?');

/** Largest click body the early-retry refusal reads to judge it; a larger one is let on to be told. */
const MAX_JUDGED_BODY = 1024;
const JWT_SHAPE = /^Bearer [\w-]+\.[\w-]+\.[\w-]+$/;

/** Whether the refusal may judge this click: a token of our shape, and no body or a small JSON one. */
function penaltyApplies(req: IncomingMessage): boolean {
  const authorization = req.headers.authorization;
  if (!authorization || !JWT_SHAPE.test(authorization)) return false;
  if (req.headers['transfer-encoding'] !== undefined) return false;
  const length = req.headers['content-length'];
  if (length !== undefined && !(/^\d{1,4}$/.test(length) && Number(length) <= MAX_JUDGED_BODY)) return false;
  const type = req.headers['content-type'];
  // No body and no type, or a small body said to be JSON (an empty one said to be JSON is a 400 behind).
  if (Number(length ?? 0) === 0) return type === undefined;
  if (!type || !/^application\/json\s*(;|$)/i.test(type)) return false;
  return true;
}

/** The token's own `exp` has passed (or its claims cannot be read): the game will answer 401. */
function tokenExpired(authorization: string, now: number): boolean {
  try {
    const payload = authorization.slice(7).split('.')[1]!;
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' && claims.exp * 1000 <= now;
  } catch {
    return true;
  }
}

function isJson(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function readSmallBody(req: IncomingMessage, done: (text: string) => void): void {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.once('end', () => done(Buffer.concat(chunks).toString('utf8')));
  req.once('error', () => undefined);
}

/** Early refusals held at once at most (a timer and an open response each); past it they go at once. */
const MAX_HELD = 20_000;

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
  const badBodyText = JSON.stringify(
    errorBody('Request body is not valid JSON', { code: 'FST_ERR_CTP_INVALID_JSON_BODY' }),
  );
  const badBody = (res: ServerResponse) => {
    const { 'retry-after': _unused, ...plain } = headers;
    res.writeHead(400, { ...plain, 'content-length': Buffer.byteLength(badBodyText) });
    res.end(badBodyText);
  };

  const server = app.server;
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  const fastifyHandler = handlers[0];
  if (handlers.length !== 1 || !fastifyHandler) throw new Error('the gateway expects one request handler');
  server.removeListener('request', fastifyHandler);
  // An early retry's refusal is held a while before it goes (a tarpit): a client that resends the moment
  // it is answered then costs a timer per connection, not thousands of refusals a second that take the
  // event loop, and with it the admission limit, from the players who wait. Bounded: past MAX_HELD held
  // answers, the next ones go at once.
  /** Clicks let on to the game whose answer the early-retry rule reads (by their token). */
  const judged = new WeakMap<IncomingMessage, string>();
  const delayMs = options.penaltyDelayMs ?? 0;
  /** Held refusals, each sent when its time comes (or at once when the gateway closes). */
  const held = new Set<() => void>();
  const refuseEarly = (req: IncomingMessage, res: ServerResponse, waitMs: number) => {
    refusedEarly.inc();
    const send = () => {
      held.delete(send);
      if (res.destroyed || res.headersSent) return;
      res.writeHead(429, earlyHeaders(waitMs));
      res.end(earlyBody);
    };
    const hold = Math.min(delayMs, waitMs);
    if (hold <= 0 || held.size >= MAX_HELD) return send();
    held.add(send);
    const timer = setTimeout(send, hold);
    res.once('close', () => {
      held.delete(send);
      clearTimeout(timer);
    });
  };
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (isClick(req.method ?? '', req.url)) {
      // A client that was told to come back later and did not wait, again and again, is refused before
      // anything else: no admission slot, no Fastify, no Redis. Only a click that is well formed as far
      // as can be seen here is judged (a bearer token shaped like ours, a small JSON body or none): any
      // other is let on to be told what is wrong with it.
      let token: string | undefined;
      if (penalty && penaltyApplies(req)) {
        token = tokenKey(req.headers.authorization);
        if (token && penalty.knows(token)) {
          const now = Date.now();
          const wait = penalty.early(addressKey(clientAddress(req, trust)), token, now);
          // A token past its expiry is told so (401) by the game, whatever its record.
          if (wait > 0 && !tokenExpired(req.headers.authorization!, now)) {
            const length = Number(req.headers['content-length'] ?? 0);
            if (length === 0) {
              refuseEarly(req, res, wait);
              req.resume();
              return;
            }
            // A body is read (at most MAX_JUDGED_BODY bytes, checked above) so a malformed one gets the
            // 400 that names it, as the game would answer, rather than the refusal.
            readSmallBody(req, (text) => {
              if (isJson(text)) refuseEarly(req, res, wait);
              else badBody(res);
            });
            return;
          }
        }
      }
      const startedAt = admission.enter();
      if (startedAt === undefined) {
        refused.inc();
        if (penalty && token) penalty.refused(token, retryAfterMs, Date.now());
        res.writeHead(503, headers);
        res.end(body);
        // The request's (empty) body is left to Node, which discards it with the keep-alive connection intact.
        req.resume();
        return;
      }
      res.once('close', () => admission.leave(startedAt));
      if (token) judged.set(req, token);
    }
    fastifyHandler(req, res);
  });
  // What the game answered a judged click, read as the answer leaves (before the client can send its
  // next click, which must find it): a 200 clears the client's record once its Retry-After has run out;
  // the game's per-second click limits (429 with a Retry-After) count like an overload refusal here, so
  // a client that does not wait for them is an early retrier too. A 503 from upstream does not: a crashed
  // or restarting game is nobody's fault, and its clients' retries are no early retries.
  app.addHook('onSend', (request, reply, payload, done) => {
    const token = judged.get(request.raw);
    if (token && penalty) {
      judged.delete(request.raw);
      const retryAfterS = Number(reply.getHeader('retry-after'));
      if (reply.statusCode === 200) penalty.accepted(token, Date.now());
      else if (reply.statusCode === 429 && retryAfterS > 0)
        penalty.refused(token, retryAfterS * 1000, Date.now());
    }
    done(null, payload);
  });
  app.addHook('onClose', (_instance, done) => {
    for (const send of [...held]) send();
    admission.close();
    done();
  });
}
