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
