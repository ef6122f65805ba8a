// The API described at the front door: /api/openapi.json and /api/asyncapi.json (generated from the
// contracts' catalogue at start-up), and the browsable docs at /api/docs (Swagger UI, served from the
// package itself: no CDN). security-headers.ts gives /api/docs the page policy it needs.
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import { buildAsyncApiDocument, buildOpenApiDocument } from '@omc/contracts';
import type { FastifyInstance } from 'fastify';

export const DOCS_PREFIX = '/api/docs';

export async function apiDocs(app: FastifyInstance): Promise<void> {
  const openapi = buildOpenApiDocument();
  const asyncapi = buildAsyncApiDocument();
  await app.register(async (docs) => {
    await docs.register(swagger, {
      mode: 'static',
      specification: { document: openapi as never },
    });
    await docs.register(swaggerUi, {
      routePrefix: DOCS_PREFIX,
      uiConfig: { deepLinking: true, docExpansion: 'list', tryItOutEnabled: false },
      // The page's policy is the gateway's (security-headers.ts); the plugin adds none of its own.
      staticCSP: false,
    });
  });
  app.get('/api/openapi.json', async (_request, reply) =>
    reply.header('cache-control', 'no-cache').send(openapi),
  );
  app.get('/api/asyncapi.json', async (_request, reply) =>
    reply.header('cache-control', 'no-cache').send(asyncapi),
  );
}
