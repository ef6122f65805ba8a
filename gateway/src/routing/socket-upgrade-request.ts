// What the gateway reads from a websocket upgrade and says back: its request id, whether its path is
// the live service's, the upgrade as passed on to an instance, and a refusal as an HTTP answer.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { errorBody, SOCKET_PATH } from '@omc/contracts';
import { pathProblem, requestPath } from '../edge/path-guard.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Headers the gateway sets itself; the caller's versions are dropped. */
const OWN_HEADERS = new Set([
  'x-request-id',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-real-ip',
  'forwarded',
]);

/** The caller's request id when it is a sound one, else a new one. */
export function upgradeRequestId(request: IncomingMessage): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/** Only /socket.io (and below it), in its one spelling, accepts websocket connections. */
export function isSocketPath(url: string | undefined): boolean {
  const path = requestPath(url);
  if (pathProblem(url) || !path) return false;
  return path === SOCKET_PATH || path.startsWith(`${SOCKET_PATH}/`);
}

/** The upgrade as an instance gets it: the caller's headers but the gateway's own, which it sets. */
export function upgradeRequestText(
  request: IncomingMessage,
  requestId: string,
  forwardedFor: string,
): string {
  const lines = [`${request.method} ${request.url} HTTP/1.1`];
  for (let i = 0; i < request.rawHeaders.length; i += 2) {
    const name = request.rawHeaders[i]!;
    if (!OWN_HEADERS.has(name.toLowerCase())) lines.push(`${name}: ${request.rawHeaders[i + 1]}`);
  }
  lines.push(`X-Request-Id: ${requestId}`, `X-Forwarded-For: ${forwardedFor}`, `X-Forwarded-Proto: http`);
  return `${lines.join('\r\n')}\r\n\r\n`;
}

export function refuse(
  socket: Duplex,
  status: number,
  reason: string,
  message: string,
  requestId: string,
): void {
  const body = JSON.stringify(errorBody(message, { requestId }));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}
