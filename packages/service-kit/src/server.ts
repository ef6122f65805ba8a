// The Fastify instance every service starts from: JSON logs with the gateway's request id, zod
// validation and serialization, body limits, one error handler.
import { ERROR_CODE, ERRORS, errorBody, errorMessage } from '@omc/contracts';
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { registerErrorHandling } from './errors.js';
import { asRequest } from './store-deadline.js';
import { registerTextGuard, registerUtf8Json, urlTextProblem } from './text-guard.js';
import { loggerOptions, type Logger } from './logger.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** Past this size, a refused body is not read to its end: the connection is closed instead. */
const DRAIN_LIMIT_BYTES = 16 * 1024 * 1024;

/** How long a refused connection is read and dropped, so its answer is not lost to a reset. */
const LINGER_MS = 2_000;
const answered = new WeakSet<Socket>();

/**
 * A request Node cannot parse (a header over the limit, a malformed line) is answered with a message,
 * then the connection is half-closed and what the client is still sending is read and dropped for a
 * moment. Closing at once, as Node and Fastify do, resets the connection while the client is still
 * sending, and a client whose send is cut by the reset often never reads the answer.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  if (answered.has(socket)) return;
  answered.add(socket);
  const { HPE_HEADER_OVERFLOW, ERR_HTTP_REQUEST_TIMEOUT, FST_ERR_CLIENT } = ERROR_CODE;
  const named = [HPE_HEADER_OVERFLOW, ERR_HTTP_REQUEST_TIMEOUT].find((code) => code === error.code);
  const { status, message } = ERRORS[named ?? FST_ERR_CLIENT];
  const body = JSON.stringify(errorBody(message, { code: error.code ?? FST_ERR_CLIENT }));
  const linger = setTimeout(() => socket.destroy(), LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.resume();
}

/**
 * A path the router cannot decode (its percent-encoding is not UTF-8) is answered in the one error shape,
 * naming the path; any other error of the framework's own goes on to the error handler.
 */
function answerBadUrl(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  if (error.code !== 'FST_ERR_BAD_URL') {
    void reply.send(error);
    return;
  }
  const message = urlTextProblem(request.raw.url)?.message ?? 'path is not a valid URL component';
  const { BAD_REQUEST } = ERROR_CODE;
  void reply.code(400).send(errorBody(message, { code: BAD_REQUEST, field: 'path', requestId: request.id }));
}

export interface ServerOptions {
  name: string;
  logLevel?: string;
  /** Maximum request body in bytes (default 64 KiB: no route of ours takes more). */
  bodyLimit?: number;
  /** The service's one logger (deps.log); Fastify logs requests through it. */
  log?: Logger;
  /** Pino destination or a disabled logger in tests. */
  logger?: FastifyServerOptions['logger'];
  trustProxy?: boolean | string | string[] | ((address: string, hop: number) => boolean);
  /**
   * false: the server registers the text guard (text-guard.ts) itself, after hooks of its own that must
   * answer first (the gateway's one-spelling path check). Default true.
   */
  guardText?: boolean;
  /** Believe X-Forwarded-For from this many nearest peers (the gateway), no further (instead of trustProxy). */
  trustProxyHops?: number;
}

export function createServer(options: ServerOptions): FastifyInstance {
  const app = Fastify({
    ...(options.logger === undefined && options.log
      ? { loggerInstance: options.log as FastifyBaseLogger }
      : { logger: options.logger ?? loggerOptions(options.name, options.logLevel) }),
    bodyLimit: options.bodyLimit ?? 64 * 1024,
    // false: Fastify would otherwise take the header as it is and never call genReqId.
    requestIdHeader: false,
    // Accept the gateway's id when it looks like one; otherwise make our own.
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    },
    trustProxy:
      options.trustProxyHops === undefined
        ? (options.trustProxy ?? true)
        : (_address: string, hop: number) => hop < options.trustProxyHops!,
    return503OnClosing: true,
    forceCloseConnections: 'idle',
    clientErrorHandler: answerClientError,
    frameworkErrors: answerBadUrl,
  }).withTypeProvider<ZodTypeProvider>();
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandling(app);
  // Text Postgres cannot store (NUL, bytes that are not UTF-8, lone surrogates) is a 400 here (text-guard.ts).
  registerUtf8Json(app);
  if (options.guardText !== false) registerTextGuard(app);
  // What a request does runs as a request: its Postgres queries carry the deadline (store-deadline.ts).
  app.addHook('onRequest', (_request, _reply, done) => asRequest(done));
  // A declared body over the route's limit is refused before a byte of it is read. Fastify refuses it
  // too, but by closing the connection while the client is still sending, and a client whose send is
  // cut by the reset often never reads the 413. Node reads and drops the rest of a body of reasonable
  // size and keeps the connection; only an absurd one is cut off.
  app.addHook('onRequest', async (request, reply) => {
    const declared = Number(request.headers['content-length']);
    if (!(declared > request.routeOptions.bodyLimit)) return;
    if (declared > DRAIN_LIMIT_BYTES) void reply.header('connection', 'close');
    const code = ERROR_CODE.FST_ERR_CTP_BODY_TOO_LARGE;
    return reply.code(413).send(errorBody(errorMessage(code), { code, requestId: request.id }));
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('x-request-id', request.id);
  });
  return app;
}

export type App = ReturnType<typeof createServer>;
