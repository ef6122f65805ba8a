// One error type for the rules, one handler for every error: the real message below 500, a generic one
// with the request id at 500, and never a stack trace on the wire.
import { ERROR_CODE, ERRORS, errorBody, errorMessage, isErrorCode, type ErrorCode } from '@omc/contracts';
import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { ZodError } from 'zod';
import { isStoreUnavailable } from './store-deadline.js';

export class AppError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly statusCode: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The answer to a request whose store did not answer: nothing was done, try again in a moment. */
export const storeUnavailable = () =>
  new AppError('UNAVAILABLE', 503, 'This is briefly unavailable; please try again in a moment');

const { BAD_REQUEST, UNAUTHORIZED, FORBIDDEN, NOT_FOUND, CONFLICT, RATE_LIMITED, INTERNAL } = ERROR_CODE;

export const badRequest = (message: string, field?: string) => new AppError(BAD_REQUEST, 400, message, field);
export const unauthorized = (message: string = errorMessage(UNAUTHORIZED)) =>
  new AppError(UNAUTHORIZED, 401, message);
export const forbidden = (message: string = errorMessage(FORBIDDEN)) => new AppError(FORBIDDEN, 403, message);
export const notFound = (message: string = errorMessage(NOT_FOUND)) => new AppError(NOT_FOUND, 404, message);
export const conflict = (message: string, field?: string) => new AppError(CONFLICT, 409, message, field);
export const tooManyRequests = (message: string = errorMessage(RATE_LIMITED)) =>
  new AppError(RATE_LIMITED, 429, message);

/** A 429 that says when to come back: the handler sends Retry-After. */
export class RetryLater extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super('RATE_LIMITED', 429, message);
  }
}

function describeZodIssue(issue: { path: PropertyKey[]; message: string }): {
  field?: string;
  message: string;
} {
  const field = issue.path.map(String).join('.') || undefined;
  const message =
    issue.message.startsWith(field ?? '\u0000') || !field ? issue.message : `${field}: ${issue.message}`;
  return { field, message };
}

export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((thrown: FastifyError | AppError | ZodError, request, reply) => {
    const requestId = request.id;
    // A store that did not answer within its deadline (store-deadline.ts): 503, try again in a moment.
    const error = isStoreUnavailable(thrown) ? storeUnavailable() : thrown;
    let status = 500;
    let body: { message: string; code?: string; field?: string };

    if (error instanceof AppError) {
      status = error.statusCode;
      body = { message: error.message, code: error.code, field: error.field };
    } else if (hasZodFastifySchemaValidationErrors(error)) {
      const first = error.validation[0];
      const path = first
        ? String(first.instancePath ?? '')
            .replace(/^\//, '')
            .replace(/\//g, '.')
        : '';
      const location = error.validationContext ?? 'body';
      const field = path || undefined;
      status = 400;
      const detail = first?.message ?? 'invalid input';
      body = {
        message:
          field && !detail.startsWith(field)
            ? `${field}: ${detail}`
            : field
              ? detail
              : `${location}: ${detail}`,
        code: BAD_REQUEST,
        field,
      };
    } else if (error instanceof ZodError) {
      const described = describeZodIssue(error.issues[0] ?? { path: [], message: 'invalid input' });
      status = 400;
      body = { message: described.message, code: BAD_REQUEST, field: described.field };
    } else if (isResponseSerializationError(error)) {
      status = 500;
      body = { message: errorMessage(INTERNAL), code: INTERNAL };
    } else if (
      typeof (error as FastifyError).statusCode === 'number' &&
      (error as FastifyError).statusCode! < 500
    ) {
      status = (error as FastifyError).statusCode!;
      body = { message: friendlyFastifyMessage(error as FastifyError), code: (error as FastifyError).code };
    } else {
      body = { message: errorMessage(INTERNAL), code: INTERNAL };
    }

    // A 503 the service chose (a store away, a queue full) says when to try again; it is no bug to log
    // with its stack.
    if (error instanceof RetryLater) void reply.header('retry-after', String(error.retryAfterSeconds));
    if (error instanceof AppError && status === 503) {
      if (!reply.hasHeader('retry-after')) void reply.header('retry-after', '1');
      const cause = error === thrown ? undefined : (thrown as Error).message;
      request.log.warn({ status, code: body.code, msg: body.message, cause }, 'request refused: unavailable');
    } else if (status >= 500) request.log.error({ err: error }, 'request failed');
    else request.log.info({ status, code: body.code, msg: body.message }, 'request refused');

    void reply.status(status).send(errorBody(body.message, { ...body, requestId }));
  });

  app.setNotFoundHandler((request, reply) => {
    const message = `No route ${request.method} ${request.url.split('?')[0]}`;
    void reply.status(404).send(errorBody(message, { code: NOT_FOUND, requestId: request.id }));
  });
}

/** Fastify's refusal of a body, in the words of the error list; any other in Fastify's own. */
function friendlyFastifyMessage(error: FastifyError): string {
  const listed = isErrorCode(error.code) ? (ERRORS[error.code] as { message?: string }).message : undefined;
  return listed ?? error.message;
}
