// The built web app: files from WEB_DIST, index.html for every other page path (the client routes),
// a JSON 404 under /api. Hashed assets are cached for a year; index.html is always revalidated so a
// new release is picked up at once. Files compressed at build are served compressed. If the app is not
// built, a page says so. The first screens (`/`, `/game`, `/winners`) are sent already drawn, in the
// player's language (web/scripts/prerender.mjs writes them; two cookie hints choose one).
import {
  DEFAULT_LANGUAGE,
  ERROR_CODE,
  errorBody,
  SHELL_COOKIES,
  TIME_ZONE_COOKIE,
  shellFile,
  shellFor,
  shellLanguage,
} from '@omc/contracts';
import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { pickEncoding, type WinnersPages } from './winners-page.js';

const NOT_BUILT_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>One Million Clicks</title></head>
<body><h1>The web app is not built</h1>
<p>The gateway serves the built web app from WEB_DIST, which has no index.html. Build it with
<code>pnpm --filter @omc/web build</code>, or point WEB_DIST at the folder that holds it.</p></body></html>
`;

/** One cookie's value from a Cookie header (the hints are plain tokens: no decoding). */
function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

function isApi(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

export async function webApp(app: FastifyInstance, dist: string, winnersPages?: WinnersPages): Promise<void> {
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

  const sendIndex = async (request: FastifyRequest, reply: FastifyReply, path: string) => {
    if (!isBuilt())
      return reply
        .code(503)
        .type('text/html; charset=utf-8')
        .header('cache-control', 'no-store')
        .send(NOT_BUILT_PAGE);
    // The drawn first screen for this page, in the language the player chose (Spanish by default),
    // when the build wrote one; any other page is the empty index the app renders into.
    const cookies = request.headers.cookie;
    const shell = shellFor(path, cookieValue(cookies, SHELL_COOKIES.signedIn) === '1');
    const language = shellLanguage(cookieValue(cookies, SHELL_COOKIES.language)) ?? DEFAULT_LANGUAGE;
    const file = shell ? shellFile(shell, language) : null;
    void reply.header('cache-control', 'no-cache').header('vary', 'accept-encoding, cookie');
    if (shell === 'winners' && winnersPages) {
      // The winners with the page, when a list is at hand (winners-page.ts); the page alone otherwise.
      const encoding = pickEncoding(request.headers['accept-encoding']);
      const timeZone = cookieValue(cookies, TIME_ZONE_COOKIE);
      const drawn = await winnersPages.page(language, timeZone, encoding).catch((error: unknown) => {
        request.log.warn({ err: error }, 'the winners page could not be drawn; sent without its list');
        return undefined;
      });
      if (drawn) {
        if (encoding !== 'identity') void reply.header('content-encoding', encoding);
        return reply.type('text/html; charset=utf-8').send(drawn);
      }
    }
    return reply.sendFile(file && existsSync(join(root, file)) ? file : 'index.html');
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
      return reply.code(404).send(
        errorBody(`No route ${request.method} ${path}`, {
          code: ERROR_CODE.NOT_FOUND,
          requestId: request.id,
        }),
      );
    }
    // The path guard has refused dot segments and encoded separators, so this stays inside root.
    const relativePath = decodeURIComponent(path).replace(/^\/+/, '');
    const filePath = resolve(root, relativePath);
    if (relativePath && filePath.startsWith(`${root}/`) && (await isFile(filePath)))
      return reply.sendFile(relativePath);
    // A file-like path that does not exist is a 404, not the app (a missing asset must not parse as HTML).
    if (/\.[a-z0-9]{1,8}$/i.test(path))
      return reply.code(404).type('text/plain; charset=utf-8').send('Not found');
    return sendIndex(request, reply, path);
  });
}
