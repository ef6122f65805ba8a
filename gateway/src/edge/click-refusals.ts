// The answers the click admission writes itself, on the raw response: 503 for a click shed under
// overload, 429 for an early retry, 400 for a refused client's body that is not JSON. Each has the usual
// error body, `Cache-Control: no-store` and the API's security headers; bodies are built once.
import type { ServerResponse } from 'node:http';
import { ERROR_CODE, errorBody, errorMessage } from '@omc/contracts';
import { API_SECURITY_HEADERS } from './security-headers.js';

export const OVERLOADED_CODE = ERROR_CODE.OVERLOADED;
export const RETRY_TOO_SOON_CODE = ERROR_CODE.RETRY_TOO_SOON;

const json = (message: string, code: string) => JSON.stringify(errorBody(message, { code }));
const overloadedBody = json(errorMessage(OVERLOADED_CODE), OVERLOADED_CODE);
const earlyBody = json(errorMessage(RETRY_TOO_SOON_CODE), RETRY_TOO_SOON_CODE);
const badJsonBody = json(
  errorMessage(ERROR_CODE.FST_ERR_CTP_INVALID_JSON_BODY),
  ERROR_CODE.FST_ERR_CTP_INVALID_JSON_BODY,
);

const headers = (body: string): Record<string, string | number> => ({
  'content-type': 'application/json; charset=utf-8',
  'content-length': Buffer.byteLength(body),
  'cache-control': 'no-store',
  ...Object.fromEntries(API_SECURITY_HEADERS),
});

/** 503: shed under overload; come back after `retryAfterS`. */
export function refuseOverloaded(res: ServerResponse, retryAfterS: number): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(503, { ...headers(overloadedBody), 'retry-after': String(retryAfterS) });
  res.end(overloadedBody);
}

/** 429: an early retry, told the wait it has left (whole seconds, at least 1). */
export function refuseEarlyRetry(res: ServerResponse, waitMs: number): void {
  if (res.destroyed || res.headersSent) return;
  res.writeHead(429, {
    ...headers(earlyBody),
    'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))),
  });
  res.end(earlyBody);
}

/** 400: the body is not JSON, as the game would say. */
export function refuseBadJson(res: ServerResponse): void {
  res.writeHead(400, headers(badJsonBody));
  res.end(badJsonBody);
}
