// Who a request is from, as a route hands it to a service that calls another service on the player's
// behalf: the player's own token and the request id go along; the request object itself does not.
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';

export interface Caller {
  authorization?: string;
  requestId: string;
  /** The request's logger: a service's lines about this call carry the request id. */
  log: FastifyBaseLogger;
}

export function callerOf(request: FastifyRequest): Caller {
  return {
    authorization: request.headers.authorization,
    requestId: request.id,
    log: request.log,
  };
}

/** The headers of a call made on the caller's behalf. */
export function forwardedHeaders(caller: Caller): Record<string, string> {
  const headers: Record<string, string> = { accept: 'application/json', 'x-request-id': caller.requestId };
  if (caller.authorization) headers.authorization = caller.authorization;
  return headers;
}
