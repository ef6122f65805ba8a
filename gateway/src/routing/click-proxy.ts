// The click's own way to the game. The busiest route of all is proxied by one route of its own over a
// pool of kept-alive connections, its answer (a few hundred bytes of JSON) read whole and sent on:
// the general proxy (api-proxy.ts) streams every answer through reply-from's per-request machinery,
// which on the click path cost more than the proxying itself. What reaches the game, and what the
// player gets back, is what the general proxy sends: the caller's headers less the hop-by-hop ones, the
// forwarded address, protocol, host and request id; the game's status, headers and body.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingHttpHeaders } from 'node:http';
import { Pool } from 'undici';
import { CLICK_PATH } from '../edge/click-route.js';

/** Headers that belong to one connection, never passed on (RFC 9110, 7.6.1), nor the body's length. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'content-length',
  'host',
  // A client's own trace context goes no further than the gateway.
  'traceparent',
  'tracestate',
]);

export interface ClickProxyOptions {
  upstream: string;
  timeoutMs: number;
  /** Answers an upstream failure as the general proxy does (its status, message and counter). */
  onError: (reply: FastifyReply, error: Error) => void;
}

function forwardedHeaders(request: FastifyRequest): Record<string, string | string[]> {
  const given: IncomingHttpHeaders = request.headers;
  const named = (given.connection ?? '')
    .toLowerCase()
    .split(',')
    .map((name) => name.trim());
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(given)) {
    if (value === undefined || HOP_BY_HOP.has(name) || named.includes(name)) continue;
    headers[name] = value;
  }
  headers['x-request-id'] = request.id;
  // Replaces whatever the caller claimed: upstreams trust this hop only.
  headers['x-forwarded-for'] = request.ip;
  headers['x-forwarded-proto'] = request.protocol;
  headers['x-forwarded-host'] = request.host;
  return headers;
}

export function clickProxy(api: FastifyInstance, options: ClickProxyOptions): void {
  const pool = new Pool(options.upstream, {
    connections: 128,
    pipelining: 1,
    keepAliveTimeout: 30_000,
    connect: { timeout: 2_000 },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
  });
  api.addHook('onClose', async () => pool.close());
  api.post(CLICK_PATH, async (request, reply) => {
    const body = typeof request.body === 'string' && request.body.length > 0 ? request.body : null;
    let answer;
    try {
      // A click is never sent twice by the gateway: one that reached the game may have counted.
      answer = await pool.request({
        path: request.raw.url ?? CLICK_PATH,
        method: 'POST',
        headers: forwardedHeaders(request),
        body,
      });
    } catch (error) {
      return options.onError(reply, error as Error);
    }
    let text: string;
    try {
      text = await answer.body.text();
    } catch (error) {
      return options.onError(reply, error as Error);
    }
    for (const [name, value] of Object.entries(answer.headers)) {
      if (value !== undefined && !HOP_BY_HOP.has(name)) void reply.header(name, value);
    }
    return reply.code(answer.statusCode).send(text);
  });
}
