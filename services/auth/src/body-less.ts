import { badRequest } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';

/**
 * For routes that take no body: a client that still sends `Content-Type: application/json` with an
 * empty (or any) body is not refused for it; the body is ignored. The body limit still applies.
 */
export function ignoreJsonBody(scope: FastifyInstance): void {
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, _body, done) =>
    done(null, undefined),
  );
}

/**
 * For routes whose body is optional (the original client posts none): an empty body sent as JSON is read
 * as no body; any other is parsed as JSON, and a body that does not parse is a 400 as everywhere.
 */
export function optionalJsonBody(scope: FastifyInstance): void {
  const json = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (typeof body === 'string' && body.trim() === '') return done(null, undefined);
    // No body reaches the schema as null; a JSON `null` sent as the body is not "no body".
    json(request, body as string, (error, parsed) =>
      error || parsed !== null ? done(error, parsed) : done(badRequest('body must be a JSON object')),
    );
  });
}
