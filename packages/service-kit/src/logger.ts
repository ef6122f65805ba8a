// One logger per process: the service's own code and Fastify's request logs write through the same pino
// instance, with the same redaction and the same request and reply serializers Fastify would use.
import pino, { type Logger } from 'pino';
import { traceLogFields } from './tracing.js';

export function loggerOptions(name: string, level = 'info', base: Record<string, unknown> = {}) {
  return {
    level,
    base: { service: name, ...base },
    mixin: traceLogFields,
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'res.headers["set-cookie"]'],
      censor: '[redacted]',
    },
  };
}

/** The request and reply as Fastify logs them (method, url, address; status). */
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
    url: req.url,
    version: req.headers?.['accept-version'],
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket?.remotePort,
  }),
  res: (reply: { statusCode?: number }) => ({ statusCode: reply.statusCode }),
  err: pino.stdSerializers.err,
};

export function createLogger(name: string, level = 'info', base: Record<string, unknown> = {}): Logger {
  return pino({ ...loggerOptions(name, level, base), serializers });
}

export type { Logger };
