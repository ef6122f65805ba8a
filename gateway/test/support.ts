// Stand-in upstreams (tiny Fastify apps that echo what reached them), a gateway on a free port, and
// raw HTTP requests whose paths are sent exactly as written (fetch would normalise them).
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import {
  LANGUAGES,
  shellFile,
  WEB_SHELLS,
  WINNER_FIELDS,
  WINNER_ROWS_MARK,
  winnersListFile,
  type WebShell,
  type WinnersListShell,
} from '@omc/contracts';
import { testInfra } from '@omc/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import { buildApp, start, type GatewayApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';

export interface Hit {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface StandIn {
  name: string;
  app: FastifyInstance;
  url: string;
  hits: Hit[];
  close(): Promise<void>;
}

/** An upstream that answers every path with who it is and what it received. */
export async function startStandIn(
  name: string,
  extend?: (app: FastifyInstance, hits: Hit[]) => void,
): Promise<StandIn> {
  const app = Fastify({ logger: false });
  const hits: Hit[] = [];
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string' },
    (_request, body, done) => done(null, body),
  );
  extend?.(app, hits);
  app.all('/*', async (request) => {
    const hit = {
      method: request.method,
      url: request.url,
      headers: request.headers,
      body: request.body ?? null,
    };
    hits.push(hit);
    return { service: name, ...hit };
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { name, app, url: `http://127.0.0.1:${port}`, hits, close: () => app.close() };
}

export interface Gateway {
  app: GatewayApp;
  deps: Deps;
  url: string;
  /** The internal listener: /healthz, /readyz, /metrics. */
  internalUrl: string;
  close(): Promise<void>;
}

/**
 * The settings of a gateway in front of a stand-in game alone (the click path's tests): the other
 * services at an address that refuses connections, the per-address budget off, `extra` on top.
 */
/** A bearer token shaped like auth's (header.claims.signature), for stand-ins that do not check signatures. */
export const jwtShaped = (name: string, expiresInS = 3600, signature = 'sig'): string =>
  [
    Buffer.from('{"alg":"EdDSA"}').toString('base64url'),
    Buffer.from(JSON.stringify({ sub: name, exp: Math.floor(Date.now() / 1000) + expiresInS })).toString(
      'base64url',
    ),
    signature,
  ].join('.');

export function clickPathEnv(gameUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    AUTH_URL: 'http://127.0.0.1:9',
    GAME_URL: gameUrl,
    PAYMENTS_URL: 'http://127.0.0.1:9',
    REALTIME_URLS: 'http://127.0.0.1:9',
    REDIS_URL: testInfra().redisUrls.gateway,
    RATE_LIMIT_PER_IP: '0',
    ...extra,
  };
}

/** A gateway built and started as main.ts does (runService), both listeners on free ports. */
export async function startGateway(env: Record<string, string>): Promise<Gateway> {
  const config = loadConfig({ LOG_LEVEL: 'silent', HOST: '127.0.0.1', GATEWAY_INTERNAL_PORT: '0', ...env });
  const deps = await createDeps(config);
  const app = await buildApp(deps, { logger: false });
  const started = await start(app);
  await app.listen({ port: 0, host: config.HOST });
  const portOf = (server: FastifyInstance) => {
    const address = server.server.address();
    return typeof address === 'object' && address ? address.port : 0;
  };
  return {
    app,
    deps,
    url: `http://127.0.0.1:${portOf(app)}`,
    internalUrl: `http://127.0.0.1:${portOf(app.gateway.internal)}`,
    async close() {
      await app.close();
      await started.stop();
      await deps.close();
    },
  };
}

/** A built web app: index.html, a hashed asset, and a favicon. */
/**
 * A built web app as the build writes it. With `shells`, also the first screens drawn in each language
 * (web/scripts/prerender.mjs), each saying which screen and language it is.
 */
export function makeWebDist({ shells = false }: { shells?: boolean } = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'omc-web-'));
  mkdirSync(join(dir, 'assets'));
  const files = ['index.html', join('assets', 'index-3f9a1c.js')];
  if (shells) {
    mkdirSync(join(dir, 'shells'));
    for (const shell of Object.keys(WEB_SHELLS) as WebShell[])
      for (const language of LANGUAGES) {
        const file = shellFile(shell, language);
        writeFileSync(
          join(dir, file),
          `<!doctype html><html lang="${language}"><body><div id="root" data-shell="${shell}">${shell} ${language}</div></body></html>`,
        );
        files.push(file);
      }
    // The winners page drawn around a list, as the build writes it: the rows' place and one row of each kind.
    for (const language of LANGUAGES) {
      const list: WinnersListShell = {
        page: `<!doctype html><html lang="${language}"><body><div id="root" data-shell="winners"><table><tbody>${WINNER_ROWS_MARK}</tbody></table></div></body></html>`,
        rows: {
          named: `<tr><td translate="no">${WINNER_FIELDS.name}</td><td>${WINNER_FIELDS.pot}</td><td>${WINNER_FIELDS.date}</td></tr>`,
          unnamed: `<tr><td>gone ${language}</td><td>${WINNER_FIELDS.pot}</td><td>${WINNER_FIELDS.date}</td></tr>`,
        },
      };
      writeFileSync(join(dir, winnersListFile(language)), JSON.stringify(list));
    }
  }
  writeFileSync(
    join(dir, 'index.html'),
    '<!doctype html><html><body><div id="root"></div><script src="/assets/index-3f9a1c.js"></script></body></html>',
  );
  writeFileSync(join(dir, 'assets', 'index-3f9a1c.js'), 'console.log("app")');
  writeFileSync(join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  // As the build writes them: each file also brotli- and gzip-compressed beside it.
  for (const file of files) {
    const content = readFileSync(join(dir, file));
    writeFileSync(join(dir, `${file}.br`), brotliCompressSync(content));
    writeFileSync(join(dir, `${file}.gz`), gzipSync(content));
  }
  return dir;
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  json(): any;
}

/** An HTTP request whose path goes on the wire byte for byte. */
export function rawRequest(
  baseUrl: string,
  path: string,
  options: { method?: string; headers?: Record<string, string | string[]>; body?: string } = {},
): Promise<RawResponse> {
  const url = new URL(baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: options.method ?? 'GET',
        path,
        headers: options.headers,
        agent: false,
      },
      (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body, json: () => JSON.parse(body) }),
        );
      },
    );
    req.setTimeout(10_000, () => req.destroy(new Error(`no answer to ${path} in 10 s`)));
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}
