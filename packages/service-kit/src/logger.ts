// One logger per process: the service's own code and Fastify's request logs write through the same pino
// instance, with the same redaction and the same request and reply serializers Fastify would use.
//
// Secrets stay out of logs by one rule, here: a logged URL keeps its path and loses its query string
// (mailed links carry their token there), and bodies, headers that authenticate, and any field named
// like a secret (token, password, ...) one or two levels down are written as "[redacted]".
import pino, { type DestinationStream, type Logger } from 'pino';
import { traceLogFields } from './tracing.js';

const CENSOR = '[redacted]';

/** Field names that hold a secret wherever they appear in a logged object. */
const SECRET_FIELDS = [
  'token',
  'accessToken',
  'refreshToken',
  'confirmToken',
  'undoToken',
  'password',
  'currentPassword',
  'newPassword',
  'paymentMethodNonce',
  'secret',
];

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'body',
  'req.body',
  'request.body',
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((f) => `*.${f}`),
  ...SECRET_FIELDS.map((f) => `*.*.${f}`),
];

/** A URL as it may be logged: its path, and no query string (which may hold a mailed link's token). */
export function loggableUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const at = url.indexOf('?');
  return at === -1 ? url : `${url.slice(0, at)}?${CENSOR}`;
}

/** The request and reply as Fastify logs them (method, path, address; status). */
const serializers = {
  req: (req: {
    method?: string;
    url?: string;
    host?: string;
    ip?: string;
    headers?: Record<string, unknown>;
    socket?: { remotePort?: number };
  }) => ({
    method: req.method,
    url: loggableUrl(req.url),
    version: req.headers?.['accept-version'] as string | undefined,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
  res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
  err: pino.stdSerializers.err,
};

export function loggerOptions(name: string, level = 'info', base: Record<string, unknown> = {}) {
  return {
    level,
    base: { service: name, ...base },
    mixin: traceLogFields,
    redact: { paths: REDACTED_PATHS, censor: CENSOR },
    serializers,
  };
}

export function createLogger(
  name: string,
  level = 'info',
  base: Record<string, unknown> = {},
  destination?: DestinationStream,
): Logger {
  return destination
    ? pino(loggerOptions(name, level, base), destination)
    : pino(loggerOptions(name, level, base));
}

export type { Logger };
