// Taking the HTTP server's request event in front of Fastify: the handler sees each raw request first
// and passes on (`next`) what Fastify should handle. A refusal decided here costs Node's HTTP parsing and
// one small write, not a request object, hooks, logging and metrics.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

export type RawHandler = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

export function inFrontOfFastify(app: FastifyInstance, handler: RawHandler): void {
  const server = app.server;
  const handlers = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  const fastifyHandler = handlers[0];
  if (handlers.length !== 1 || !fastifyHandler) throw new Error('the gateway expects one request handler');
  server.removeListener('request', fastifyHandler);
  server.on('request', (req: IncomingMessage, res: ServerResponse) =>
    handler(req, res, () => fastifyHandler(req, res)),
  );
}
