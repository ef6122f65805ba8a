// The built web app: files from WEB_DIST, index.html for every other page path (the client routes),
// a JSON 404 under /api. Hashed assets are cached for a year; index.html is always revalidated so a
// new release is picked up at once. Files compressed at build are served compressed. If the app is not
// built, a page says so.
import { errorBody } from '@omc/contracts';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply } from 'fastify';

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>One Million Clicks</title></head>
<body><h1>The web app is not built</h1>
<p>The gateway serves the built web app from WEB_DIST, which has no index.html. Build it with
<code>pnpm --filter @omc/web build</code>, or point WEB_DIST at the folder that holds it.</p></body></html>
`;

function isApi(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

export async function webApp(app: FastifyInstance, dist: string): Promise<void> {
  const root = resolve(dist);
  const indexFile = join(root, 'index.html');
  let built = existsSync(indexFile);
  const isBuilt = () => built || (built = existsSync(indexFile));

  // Only reply.sendFile; which path serves what is decided below. The build writes each file also as
  // .br and .gz: the one the browser accepts is sent as it is (Content-Encoding, Vary: accept-encoding),
  // so no CPU goes to compressing a response and a phone downloads a third of the bytes.
  await app.register(fastifyStatic, {
    root,
    serve: false,
    cacheControl: false,
    preCompressed: true,
    setHeaders: (reply, compressedPath) => {
      const filePath = compressedPath.replace(/\.(br|gz)$/, '');
      const immutable = filePath.startsWith(`${join(root, 'assets')}/`);
      void reply.header(
        'cache-control',
        immutable
          ? 'public, max-age=31536000, immutable'
          : filePath.endsWith('.html')
            ? 'no-cache'
            : 'public, max-age=3600',
      );
    },
  });

  const sendIndex = (reply: FastifyReply) => {
    if (!isBuilt())
      return reply
        .code(503)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(NOT_BUILT_PAGE);
    return reply.header('cache-control', 'no-cache').sendFile('index.html');
  };

  const isFile = async (path: string) => {
    try {
      return (await stat(path)).isFile();
    } catch {
      return false;
    }
  };

  app.get('/*', async (request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (isApi(path)) {
      return reply
        .code(404)
        .send(errorBody(`No route ${request.method} ${path}`, { code: 'NOT_FOUND', requestId: request.id }));
    }
    // The path guard has refused dot segments and encoded separators, so this stays inside root.
    const relativePath = decodeURIComponent(path).replace(/^\/+/, '');
    const filePath = resolve(root, relativePath);
    if (relativePath && filePath.startsWith(`${root}/`) && (await isFile(filePath)))
      return reply.sendFile(relativePath);
    // A file-like path that does not exist is a 404, not the app (a missing asset must not parse as HTML).
    if (/\.[a-z0-9]{1,8}$/i.test(path))
      return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return sendIndex(reply);
  });
}
