// /api/... to the service that owns each prefix (contracts ROUTE_PREFIXES; the most specific prefix
// wins), over keep-alive connections. The path is passed on as it came, so an upstream's own routes
// outside the public prefixes (/readyz, /metrics) are never reachable from outside.
import proxy, { type FastifyHttpProxyOptions } from '@fastify/http-proxy';
import { ERROR_CODE, errorBody, ROUTE_PREFIXES, type Service } from '@omc/contracts';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import { bodyBytesProblem, type Metrics } from '@omc/service-kit';
import { clickProxy } from './click-proxy.js';

type ProxyError = Error & { statusCode?: number; code?: string; cause?: { code?: string } };

/** What answering an upstream's failure uses of a reply (the general proxy's and the click's). */
interface FailedReply {
  request: { id: string; log: { warn(details: object, message: string): void } };
  header(name: string, value: string): unknown;
  code(status: number): { type(contentType: string): { send(body: unknown): unknown } };
}

export function upstreamOf(config: Config, service: Service): string {
  return { auth: config.AUTH_URL, game: config.GAME_URL, payments: config.PAYMENTS_URL }[service];
}

/** Prefixes longest first, so a reader sees the order the router's specificity gives. */
export function apiPrefixes(): { prefix: string; service: Service }[] {
  return ROUTE_PREFIXES.filter(
    (r): r is { prefix: string; service: Service } => r.service !== 'realtime',
  ).sort((a, b) => b.prefix.length - a.prefix.length);
}

/** A refused connection is a down upstream (503); a timeout is a 504; anything else a 502. */
export function upstreamFailure(service: Service, error: ProxyError): { status: number; message: string } {
  const code = error.cause?.code ?? error.code ?? '';
  if (error.statusCode === 504 || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return { status: 504, message: `The ${service} service did not answer in time` };
  }
  if (
    [
      'ECONNREFUSED',
      'ENOTFOUND',
      'EAI_AGAIN',
      'EHOSTUNREACH',
      'UND_ERR_CONNECT_TIMEOUT',
      'FST_REPLY_FROM_SERVICE_UNAVAILABLE',
    ].includes(code) ||
    error.statusCode === 503
  ) {
    return { status: 503, message: `The ${service} service is unavailable, try again shortly` };
  }
  return { status: 502, message: `The ${service} service gave no valid answer, try again shortly` };
}

/** The body types the API takes (JSON; form-encoded for the payment provider's webhooks), kept as text. */
const FORWARDED_BODIES = ['application/json', 'application/x-www-form-urlencoded'];

export async function apiProxy(app: FastifyInstance, config: Config, metrics: Metrics): Promise<void> {
  // Read as text under bodyLimit and passed on unparsed: the gateway neither changes a body nor judges
  // it (the owner answers a malformed one with its own 400); anything else is a 415 here.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  // Bytes that are not UTF-8 are refused, not passed on with U+FFFD in their place.
  app.addContentTypeParser(FORWARDED_BODIES, { parseAs: 'buffer' }, (_request, body, done) => {
    const refused = bodyBytesProblem(body as Buffer);
    if (refused) return done(refused, undefined);
    done(null, (body as Buffer).toString('utf8'));
  });
  const failures = metrics.counter(
    'gateway_upstream_failures_total',
    'Proxied requests that got no answer from their upstream',
    ['service', 'status'],
  );

  const answerFailure = (reply: FailedReply, service: Service, error: ProxyError) => {
    const { status, message } = upstreamFailure(service, error);
    failures.inc({ service, status: String(status) });
    reply.request.log.warn({ err: error, service, status }, 'upstream failed');
    if (status === 503) void reply.header('retry-after', '2');
    void reply
      .code(status)
      .type('application/json')
      .send(errorBody(message, { code: ERROR_CODE.UPSTREAM_UNAVAILABLE, requestId: reply.request.id }));
  };
  // The click by a route of its own (more specific than the game's prefix below).
  clickProxy(app, {
    upstream: upstreamOf(config, 'game'),
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
    onError: (reply, error) => answerFailure(reply, 'game', error as ProxyError),
  });

  for (const { prefix, service } of apiPrefixes()) {
    const options: FastifyHttpProxyOptions = {
      upstream: upstreamOf(config, service),
      prefix,
      rewritePrefix: prefix,
      // Bodies are read (under the gateway's size limit, see below) and sent on byte for byte.
      proxyPayloads: false,
      handler: (request, reply, dest, options) => {
        if (request.method === 'GET' || request.method === 'HEAD') return reply.from(dest, options);
        const raw = typeof request.body === 'string' ? request.body : '';
        // An empty body is sent as one, whatever Content-Length the caller claimed.
        return reply.from(
          dest,
          raw.length > 0
            ? { ...options, body: raw, contentType: request.headers['content-type'] }
            : { ...options, body: null },
        );
      },
      undici: {
        connections: 128,
        pipelining: 1,
        keepAliveTimeout: 30_000,
        connect: { timeout: 2_000 },
        headersTimeout: config.UPSTREAM_TIMEOUT_MS,
        bodyTimeout: config.UPSTREAM_TIMEOUT_MS,
      },
      replyOptions: {
        // `headers` is already the proxy's own copy of the caller's: set on it, no second copy.
        rewriteRequestHeaders: (request, headers) => {
          headers['x-request-id'] = request.id;
          // Replaces whatever the caller claimed: upstreams trust this hop only.
          headers['x-forwarded-for'] = request.ip;
          headers['x-forwarded-proto'] = request.protocol;
          headers['x-forwarded-host'] = request.host;
          // A client's own trace context goes no further than the gateway (with tracing on, the SDK's
          // undici instrumentation adds ours).
          delete headers.traceparent;
          delete headers.tracestate;
          return headers;
        },
        // No replays of writes: a click or a checkout that reached an upstream is never sent twice by
        // the gateway. A read whose kept-alive connection closed without an answer (the replica behind it
        // died) is sent once more, on a new connection the upstream's balancer gives a live replica.
        retryDelay: ({ err, req, attempt }) =>
          attempt === 0 &&
          (req.method === 'GET' || req.method === 'HEAD') &&
          (err as ProxyError | null)?.code === 'UND_ERR_SOCKET'
            ? 1
            : null,
        onError: (reply, { error }) => answerFailure(reply, service, error as ProxyError),
      },
    };
    await app.register(proxy, options);
  }
}
