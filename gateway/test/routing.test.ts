// The gateway in front of stand-in upstreams: what a browser or a caller sees at the one front door.
import { once } from 'node:events';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROUTE_PREFIXES, ROUTES } from '@omc/contracts';
import { freePort } from '@omc/infra';
import { resetRedis, samplePath, testInfra } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import {
  makeWebDist,
  rawRequest,
  startGateway,
  startStandIn,
  type Gateway,
  type StandIn,
} from './support.js';

describe('gateway routing and edge', () => {
  let auth: StandIn;
  let game: StandIn;
  let payments: StandIn;
  let gateway: Gateway;
  let webDist: string;
  let env: Record<string, string>;
  const standIns = () => [auth, game, payments];

  beforeAll(async () => {
    await resetRedis();
    auth = await startStandIn('auth', (app) => {
      app.post('/api/user/login', async (request, reply) => {
        reply.header('set-cookie', [
          'omc_refresh=abc.def; Path=/api/user; HttpOnly; SameSite=Strict; Max-Age=2592000',
          'omc_marker=1; Path=/; SameSite=Lax',
        ]);
        return { token: 't', message: 'ok', cookie: request.headers.cookie ?? null };
      });
    });
    game = await startStandIn('game', (app) => {
      app.get('/api/game/slow', () => new Promise(() => undefined));
    });
    payments = await startStandIn('payments');
    webDist = makeWebDist();
    env = {
      AUTH_URL: auth.url,
      GAME_URL: game.url,
      PAYMENTS_URL: payments.url,
      REALTIME_URLS: 'http://127.0.0.1:9',
      REDIS_URL: testInfra().redisUrls.gateway,
      WEB_DIST: webDist,
      RATE_LIMIT_PER_IP: '0',
      UPSTREAM_TIMEOUT_MS: '500',
    };
    gateway = await startGateway(env);
  });

  afterAll(async () => {
    await gateway?.close();
    await Promise.allSettled(standIns().map((s) => s?.close()));
  });

  it('routes every public route to the service that owns it, path and query unchanged', async () => {
    for (const route of ROUTES) {
      const path = samplePath(route.path);
      const response = await rawRequest(gateway.url, `${path}?probe=1`, {
        method: route.method,
        ...(route.method === 'GET' || route.method === 'DELETE'
          ? {}
          : { headers: { 'content-type': 'application/json' }, body: '{"a":1}' }),
      });
      expect(response.status, `${route.method} ${route.path}`).toBe(200);
      const body = response.json();
      if (route.path === '/api/user/login') continue; // answered by its own stand-in route
      expect(body.service, `${route.method} ${route.path}`).toBe(route.service);
      expect(body.url).toBe(`${path}?probe=1`);
      if (route.method === 'POST' || route.method === 'PUT') expect(body.body).toEqual({ a: 1 });
    }
  });

  it('picks the most specific prefix', async () => {
    const cases: [string, string][] = [
      ['/api/winners', 'game'],
      ['/api/winners/collect', 'payments'],
      ['/api/winners/collect/again', 'payments'],
      ['/api/winners/setPaymentMethod', 'payments'],
      ['/api/winners/confirm-payout-email', 'payments'],
      ['/api/winners/anything', 'game'],
      ['/api/admin/collect', 'auth'],
      ['/api/admin/approvals', 'auth'],
      ['/api/admin/users', 'auth'],
      ['/api/admin/updateRole', 'auth'],
      ['/api/game/rules', 'game'],
      ['/api/payments/token', 'payments'],
      ['/api/user/profile', 'auth'],
    ];
    for (const [path, service] of cases) {
      const response = await rawRequest(gateway.url, path);
      expect(response.json().service, path).toBe(service);
    }
    expect(ROUTE_PREFIXES.filter((p) => p.service !== 'realtime').length).toBeGreaterThan(0);
  });

  it('answers a JSON 404 for an unknown route under /api', async () => {
    for (const path of ['/api/nope', '/api', '/api/admin/secret', '/api/usersx']) {
      const response = await rawRequest(gateway.url, path, { method: 'POST' });
      expect(response.status, path).toBe(404);
      expect(response.headers['content-type']).toMatch(/application\/json/);
      expect(response.json()).toMatchObject({
        message: expect.stringContaining(path),
        error: expect.any(String),
      });
    }
  });

  it('serves the web app, with the SPA fallback, long-cached hashed assets and a revalidated index', async () => {
    for (const path of ['/', '/game', '/winners', '/admin/roles', '/some/unknown/page']) {
      const response = await rawRequest(gateway.url, path);
      expect(response.status, path).toBe(200);
      expect(response.body).toContain('<div id="root"></div>');
      expect(response.headers['cache-control']).toBe('no-cache');
    }
    const asset = await rawRequest(gateway.url, '/assets/index-3f9a1c.js');
    expect(asset.status).toBe(200);
    expect(asset.body).toBe('console.log("app")');
    expect(asset.headers['cache-control']).toContain('immutable');
    // A script is no document: what applies to it, not the page's policy on each of the first screen's files.
    expect(asset.headers['x-content-type-options']).toBe('nosniff');
    expect(asset.headers['cross-origin-resource-policy']).toBe('same-origin');
    expect(asset.headers['content-security-policy']).toBeUndefined();
    expect(asset.headers['x-frame-options']).toBeUndefined();
    for (const path of ['/', '/game'])
      expect((await rawRequest(gateway.url, path)).headers['content-security-policy'], path).toContain(
        "script-src 'self'",
      );
    expect((await rawRequest(gateway.url, '/assets/missing-1234.js')).status).toBe(404);
    expect((await rawRequest(gateway.url, '/favicon.svg')).status).toBe(200);
  });

  it('serves the files compressed at build, as the browser accepts them, saying so and varying on it', async () => {
    const get = (path: string, acceptEncoding: string) =>
      fetch(`${gateway.url}${path}`, { headers: { 'accept-encoding': acceptEncoding } });
    for (const [acceptEncoding, encoding] of [
      ['br, gzip, deflate', 'br'],
      ['gzip', 'gzip'],
      ['identity', null],
    ] as const) {
      const asset = await get('/assets/index-3f9a1c.js', acceptEncoding);
      expect(asset.status).toBe(200);
      expect(asset.headers.get('content-encoding'), acceptEncoding).toBe(encoding);
      expect(asset.headers.get('vary')).toMatch(/accept-encoding/i);
      expect(asset.headers.get('content-type')).toMatch(/javascript/);
      expect(asset.headers.get('cache-control')).toContain('immutable');
      expect(await asset.text()).toBe('console.log("app")');
      for (const path of ['/', '/game']) {
        const page = await get(path, acceptEncoding);
        expect(page.headers.get('content-encoding'), `${path} ${acceptEncoding}`).toBe(encoding);
        expect(page.headers.get('content-type')).toMatch(/text\/html/);
        expect(page.headers.get('cache-control')).toBe('no-cache');
        expect(await page.text()).toContain('<div id="root"></div>');
      }
    }
  });

  it('sends the first screens already drawn, in the language and for the session the cookies hint at', async () => {
    const drawn = await startGateway({ ...env, WEB_DIST: makeWebDist({ shells: true }) });
    const page = async (path: string, cookie?: string) => {
      const response = await rawRequest(drawn.url, path, { headers: cookie ? { cookie } : {} });
      expect(response.status, `${path} ${cookie}`).toBe(200);
      expect(response.headers['cache-control']).toBe('no-cache');
      expect(String(response.headers.vary)).toMatch(/cookie/i);
      return /data-shell="([a-z]+)">([a-z]+ [a-z]+)</.exec(response.body)?.[2] ?? response.body;
    };
    try {
      // A first visit: the welcome screen in Spanish, the default; /game sends a visitor there too.
      expect(await page('/')).toBe('welcome es');
      expect(await page('/game')).toBe('welcome es');
      expect(await page('/winners')).toBe('winners es');
      // The language the player chose, and a stored session (/ sends a player on to the game).
      expect(await page('/', 'omc_lang=fr')).toBe('welcome fr');
      expect(await page('/', 'other=1; omc_lang=de; omc_signed_in=1')).toBe('game de');
      expect(await page('/game', 'omc_signed_in=1')).toBe('game es');
      expect(await page('/winners', 'omc_signed_in=1; omc_lang=pt')).toBe('winners pt');
      // A language the app does not speak, or a hint of another value, changes nothing.
      expect(await page('/', 'omc_lang=xx; omc_signed_in=yes')).toBe('welcome es');
      expect(await page('/', 'omc_lang=../index')).toBe('welcome es');
      // Every other page is the empty index the app renders into.
      for (const path of ['/profile', '/admin/roles', '/some/unknown/page'])
        expect(await page(path, 'omc_signed_in=1; omc_lang=en'), path).toContain('<div id="root"></div>');
      // Compressed as the browser accepts, like every built file.
      const br = await fetch(`${drawn.url}/`, {
        headers: { 'accept-encoding': 'br', cookie: 'omc_lang=it' },
      });
      expect(br.headers.get('content-encoding')).toBe('br');
      expect(br.headers.get('content-type')).toMatch(/text\/html/);
      expect(await br.text()).toContain('welcome it');
    } finally {
      await drawn.close();
    }
  });

  it('says clearly when the web app is not built', async () => {
    const bare = await startGateway({ ...env, WEB_DIST: join(webDist, 'not-here') });
    try {
      const response = await rawRequest(bare.url, '/game');
      expect(response.status).toBe(503);
      expect(response.body).toContain('The web app is not built');
      expect((await rawRequest(bare.url, '/api/game/state')).json().service).toBe('game');
    } finally {
      await bare.close();
    }
  });

  it('sends security headers whose policy admits the payment form and the live socket', async () => {
    const response = await rawRequest(gateway.url, '/game');
    const csp = String(response.headers['content-security-policy']);
    for (const origin of [
      'https://js.braintreegateway.com',
      'https://assets.braintreegateway.com',
      'https://*.paypal.com',
      'https://*.braintree-api.com',
      'https://pay.google.com',
    ]) {
      expect(csp).toContain(origin);
    }
    expect(csp).toMatch(/connect-src 'self' ws: wss:/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(response.headers['x-content-type-options']).toBe('nosniff');
  });

  it("answers the API with a short policy for data, not the page's 2 KB payment policy", async () => {
    const response = await rawRequest(gateway.url, '/api/game/state');
    expect(response.headers['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
    expect(response.headers['x-content-type-options']).toBe('nosniff');
    expect(response.headers['x-frame-options']).toBe('DENY');
    expect(response.headers['cross-origin-resource-policy']).toBe('same-origin');
    const headerBytes = Object.entries(response.headers).reduce(
      (sum, [name, value]) => sum + name.length + String(value).length + 4,
      0,
    );
    expect(headerBytes).toBeLessThan(700);
  });

  it('passes a well-formed request id on and returns it; makes one otherwise', async () => {
    const given = await rawRequest(gateway.url, '/api/game/state', {
      headers: { 'x-request-id': 'req-abc-123' },
    });
    expect(given.headers['x-request-id']).toBe('req-abc-123');
    expect(given.json().headers['x-request-id']).toBe('req-abc-123');

    const bad = await rawRequest(gateway.url, '/api/game/state', {
      headers: { 'x-request-id': 'x'.repeat(300) },
    });
    const made = bad.headers['x-request-id'];
    expect(made).toMatch(/^[0-9a-f-]{36}$/);
    expect(bad.json().headers['x-request-id']).toBe(made);
  });

  it("tells upstreams the caller's address, not what the caller claims", async () => {
    const response = await rawRequest(gateway.url, '/api/game/state', {
      headers: { 'x-forwarded-for': '6.6.6.6' },
    });
    expect(response.json().headers['x-forwarded-for']).toBe('127.0.0.1');
  });

  it('passes the refresh cookie through untouched, both ways', async () => {
    const response = await rawRequest(gateway.url, '/api/user/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: 'omc_refresh=old.token; other=1' },
      body: '{"emailOrUsername":"a","password":"b"}',
    });
    expect(response.status).toBe(200);
    expect(response.json().cookie).toBe('omc_refresh=old.token; other=1');
    expect(response.headers['set-cookie']).toEqual([
      'omc_refresh=abc.def; Path=/api/user; HttpOnly; SameSite=Strict; Max-Age=2592000',
      'omc_marker=1; Path=/; SameSite=Lax',
    ]);
  });

  it('passes bodies on byte for byte, refuses one over the limit and any type the API does not take', async () => {
    const json = '{ "paymentMethodNonce": "fake-valid-nonce",\n  "amount": "0.99" }';
    const sent = await rawRequest(gateway.url, '/api/payments/checkout', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: json,
    });
    expect(sent.json().body).toEqual({ paymentMethodNonce: 'fake-valid-nonce', amount: '0.99' });
    expect(sent.json().headers['content-length']).toBe(String(Buffer.byteLength(json)));

    // The payment provider's webhooks are form-encoded.
    const form = await rawRequest(gateway.url, '/api/payments/webhooks/braintree', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'bt_signature=abc&bt_payload=xyz',
    });
    expect(form.json()).toMatchObject({
      service: 'payments',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });

    // A body-less call that still says JSON is the owner's to judge, with an honest empty body.
    const empty = await rawRequest(gateway.url, '/api/user/refresh', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': '0' },
      body: '',
    });
    expect(empty.json()).toMatchObject({ service: 'auth', body: null });

    const bigBody = JSON.stringify({ paymentMethodNonce: 'x'.repeat(100 * 1024), amount: '0.99' });
    const big = await rawRequest(gateway.url, '/api/payments/checkout', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'content-length': String(bigBody.length),
        connection: 'keep-alive',
      },
      body: bigBody,
    });
    expect(big.status).toBe(413);
    expect(big.json().message).toBe('Request body is too large');
    // Refused before it is read, the rest dropped, the connection kept: the client reads its answer.
    expect(big.headers.connection).not.toBe('close');
    const absurd = await rawRequest(gateway.url, '/api/payments/checkout', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(1024 ** 3) },
    });
    expect(absurd.status).toBe(413);
    expect(absurd.headers.connection).toBe('close');
    const before = payments.hits.length;
    const xml = await rawRequest(gateway.url, '/api/payments/checkout', {
      method: 'POST',
      headers: { 'content-type': 'application/xml' },
      body: '<a/>',
    });
    expect(xml.status).toBe(415);
    expect(xml.json().message).toEqual(expect.any(String));
    expect(payments.hits.length).toBe(before);
  });

  it('refuses text no store can hold (NUL, bytes not UTF-8) with a 400 naming it, passing nothing on', async () => {
    const before = standIns().map((s) => s.hits.length);
    const query = await gateway.app.inject({ method: 'GET', url: '/api/admin/users?query=%00' });
    expect(query.statusCode).toBe(400);
    expect(query.json()).toMatchObject({ code: 'BAD_REQUEST', field: 'query' });
    const bytes = await gateway.app.inject({
      method: 'POST',
      url: '/api/payments/checkout',
      headers: { 'content-type': 'application/json' },
      payload: Buffer.concat([Buffer.from('{"amount":"'), Buffer.from([0xc3, 0x28]), Buffer.from('"}')]),
    });
    expect(bytes.statusCode).toBe(400);
    expect(bytes.json()).toMatchObject({ code: 'BAD_REQUEST', field: 'body' });
    expect(standIns().map((s) => s.hits.length)).toEqual(before);
  });

  it('keeps path tricks away from anything but the public routes', async () => {
    const tricks = [
      '/api/user/../../readyz',
      '/api/user/../../metrics',
      '/api/../readyz',
      '/api/user/..%2F..%2Freadyz',
      '/api/game%2F..%2F..%2Fmetrics',
      '/api/%2e%2e/readyz',
      '/api/user/%2e%2e/%2e%2e/readyz',
      '/api/user/%252e%252e/%252e%252e/readyz',
      '/api/user/%252F..%252Freadyz',
      '/api/user\\..\\..\\readyz',
      '/api/user/./../../metrics',
      '//api/user/profile',
      '/api/game/%00',
    ];
    const before = standIns().map((s) => s.hits.length);
    for (const path of tricks) {
      const response = await rawRequest(gateway.url, path);
      expect([400, 404], path).toContain(response.status);
      expect(response.json().message, path).toEqual(expect.any(String));
    }
    expect(standIns().map((s) => s.hits.length)).toEqual(before);
    // An upstream's own routes sit outside the public prefixes, and the gateway's own are not public.
    const readyz = await rawRequest(gateway.url, '/readyz');
    expect(readyz.status).toBe(404);
    expect(readyz.json().code).toBe('NOT_FOUND');
    expect(standIns().map((s) => s.hits.length)).toEqual(before);
    expect((await rawRequest(gateway.url, '/api/game/readyz')).json().url).toBe('/api/game/readyz');
  });

  it('answers 503 with a JSON message at once when an upstream is down, and 504 when it hangs', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const port = (closed.address() as { port: number }).port;
    closed.close();
    const down = await startGateway({ ...env, PAYMENTS_URL: `http://127.0.0.1:${port}` });
    try {
      for (const [method, path] of [
        ['GET', '/api/payments/token'],
        ['POST', '/api/winners/collect'],
      ] as const) {
        const response = await rawRequest(down.url, path, { method });
        expect(response.status, path).toBe(503);
        expect(response.json()).toMatchObject({
          message: 'The payments service is unavailable, try again shortly',
          error: expect.any(String),
        });
      }
      expect((await rawRequest(down.url, '/api/game/state')).status).toBe(200);
    } finally {
      await down.close();
    }
    const slow = await rawRequest(gateway.url, '/api/game/slow');
    expect(slow.status).toBe(504);
    expect(slow.json()).toMatchObject({
      message: 'The game service did not answer in time',
      error: expect.any(String),
    });
  });

  it("proxies a click as every other route: the caller's headers less its connection's, the game's answer as it is", async () => {
    // The click has a route of its own (routing/click-proxy.ts); what crosses it is what crosses the rest.
    const clickGame = await startStandIn('game', (app) => {
      app.post('/api/game/click', async (request, reply) => {
        if (request.headers['x-test'] === 'hang') return new Promise(() => undefined);
        if (request.headers['x-test'] === 'refuse')
          return reply
            .code(503)
            .header('retry-after', '1')
            .header('x-from-game', 'yes')
            .send({ message: 'busy' });
        return { url: request.url, headers: request.headers };
      });
    });
    const front = await startGateway({ ...env, GAME_URL: clickGame.url });
    try {
      const passed = await rawRequest(front.url, '/api/game/click?probe=1', {
        method: 'POST',
        headers: {
          authorization: 'Bearer abc',
          'x-forwarded-for': '6.6.6.6',
          'x-request-id': 'click-req-1',
          traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
          connection: 'keep-alive, x-hop',
          'x-hop': 'secret',
        },
      });
      expect(passed.status).toBe(200);
      const seen = passed.json();
      expect(seen.url).toBe('/api/game/click?probe=1');
      expect(seen.headers).toMatchObject({
        authorization: 'Bearer abc',
        'x-forwarded-for': '127.0.0.1',
        'x-request-id': 'click-req-1',
      });
      for (const dropped of ['x-hop', 'traceparent']) expect(seen.headers[dropped], dropped).toBeUndefined();
      expect(passed.headers['x-request-id']).toBe('click-req-1');
      // The gateway's own headers are on it, as on every answer.
      expect(passed.headers['x-content-type-options']).toBe('nosniff');

      const refused = await rawRequest(front.url, '/api/game/click', {
        method: 'POST',
        headers: { 'x-test': 'refuse' },
      });
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.headers['x-from-game']).toBe('yes');
      expect(refused.json()).toEqual({ message: 'busy' });

      const hung = await rawRequest(front.url, '/api/game/click', {
        method: 'POST',
        headers: { 'x-test': 'hang' },
      });
      expect(hung.status).toBe(504);
      expect(hung.json()).toMatchObject({ message: 'The game service did not answer in time' });
    } finally {
      await front.close();
      await clickGame.close();
    }
    // The game away: a clear 503 saying so, as for any route.
    const away = await startGateway({ ...env, GAME_URL: `http://127.0.0.1:${await freePort()}` });
    try {
      const response = await rawRequest(away.url, '/api/game/click', { method: 'POST' });
      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('2');
      expect(response.json()).toMatchObject({
        message: 'The game service is unavailable, try again shortly',
      });
    } finally {
      await away.close();
    }
  });

  it('refuses polling on /socket.io: the live connection is websocket only', async () => {
    const response = await rawRequest(gateway.url, '/socket.io/?EIO=4&transport=polling');
    expect(response.status).toBe(400);
    expect(response.json().message).toContain('websocket');
  });

  it('reports its own health, readiness and metrics on its internal listener, and nothing else there', async () => {
    expect((await rawRequest(gateway.internalUrl, '/healthz')).json()).toEqual({ status: 'ok' });
    const readyz = await rawRequest(gateway.internalUrl, '/readyz');
    expect(readyz.status).toBe(200);
    expect(readyz.json()).toEqual({ status: 'ready', checks: { redis: 'ok', public: 'ok' } });
    await rawRequest(gateway.url, '/api/game/state');
    const metrics = await rawRequest(gateway.internalUrl, '/metrics');
    expect(metrics.body).toContain('gateway_upstream_failures_total');
    // Requests on the public port are timed; the internal listener's own are not.
    expect(metrics.body).toMatch(/http_request_duration_seconds_count\{[^}]*route="\/api\/game\/\*"/);
    const before = standIns().map((s) => s.hits.length);
    for (const path of ['/api/game/state', '/', '/index.html']) {
      const response = await rawRequest(gateway.internalUrl, path);
      expect(response.status, path).toBe(404);
    }
    expect(standIns().map((s) => s.hits.length)).toEqual(before);
  });

  it('refuses an internal port equal to the public one', () => {
    expect(() => loadConfig({ GATEWAY_PORT: '8080', GATEWAY_INTERNAL_PORT: '8080' })).toThrow(
      /GATEWAY_INTERNAL_PORT: must differ from the public port GATEWAY_PORT \(8080\)/,
    );
    expect(loadConfig({}).GATEWAY_INTERNAL_PORT).toBe(9080);
    expect(loadConfig({ GATEWAY_PORT: '0', GATEWAY_INTERNAL_PORT: '0' }).GATEWAY_INTERNAL_PORT).toBe(0);
  });

  it('answers its liveness, readiness and metrics paths on the public port with a JSON 404', async () => {
    for (const path of ['/metrics', '/readyz', '/healthz', '/metrics?format=text', '/readyz?verbose=1']) {
      for (const method of ['GET', 'HEAD', 'POST']) {
        const response = await rawRequest(gateway.url, path, { method });
        expect(response.status, `${method} ${path}`).toBe(404);
        expect(response.headers['content-type'], `${method} ${path}`).toContain('application/json');
        if (method === 'HEAD') continue;
        expect(response.json(), `${method} ${path}`).toMatchObject({
          code: 'NOT_FOUND',
          message: expect.any(String),
        });
        expect(response.body).not.toContain('# HELP');
      }
    }
  });
});

describe('gateway rate limit', () => {
  let upstream: StandIn;
  const gateways: Gateway[] = [];

  beforeAll(async () => {
    await resetRedis();
    upstream = await startStandIn('game');
  });

  afterAll(async () => {
    await Promise.allSettled(gateways.map((g) => g.close()));
    await upstream?.close();
  });

  it('limits requests per address across every gateway instance, through Redis', async () => {
    const env = {
      AUTH_URL: upstream.url,
      GAME_URL: upstream.url,
      PAYMENTS_URL: upstream.url,
      REDIS_URL: testInfra().redisUrls.gateway,
      RATE_LIMIT_PER_IP: '6',
    };
    gateways.push(await startGateway(env), await startGateway(env));
    const statuses: number[] = [];
    for (let i = 0; i < 8; i += 1)
      statuses.push((await rawRequest(gateways[i % 2]!.url, '/api/game/state')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    const limited = await rawRequest(gateways[0]!.url, '/api/winners');
    expect(limited.status).toBe(429);
    expect(limited.json()).toMatchObject({
      message: expect.stringContaining('Too many requests'),
      error: expect.any(String),
    });
    // The web app and the gateway's health are not counted against the budget.
    expect((await rawRequest(gateways[1]!.internalUrl, '/healthz')).status).toBe(200);
  });

  it('stays ready and serves without its rate-limit Redis, reporting it down', async () => {
    // Nothing listens on this port: the budget fails open, and readiness does not depend on it.
    const gateway = await startGateway({
      AUTH_URL: upstream.url,
      GAME_URL: upstream.url,
      PAYMENTS_URL: upstream.url,
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      RATE_LIMIT_PER_IP: '6',
    });
    gateways.push(gateway);
    const readyz = await rawRequest(gateway.internalUrl, '/readyz');
    expect(readyz.status).toBe(200);
    expect(readyz.json()).toMatchObject({ status: 'ready', checks: { public: 'ok' } });
    expect(readyz.json().checks.redis).toMatch(/^down/);
    expect((await rawRequest(gateway.url, '/api/game/state')).status).toBe(200);
  });

  it('counts an IPv6 /64 as one address, an IPv4 address as itself', async () => {
    await resetRedis();
    const gateway = await startGateway({
      AUTH_URL: upstream.url,
      GAME_URL: upstream.url,
      PAYMENTS_URL: upstream.url,
      REDIS_URL: testInfra().redisUrls.gateway,
      RATE_LIMIT_PER_IP: '4',
      TRUST_PROXY: '127.0.0.1',
    });
    gateways.push(gateway);
    const from = (address: string) =>
      rawRequest(gateway.url, '/api/game/state', { headers: { 'x-forwarded-for': address } });
    // Four addresses of one /64 take its budget; a fifth of the same /64 is refused.
    const statuses: number[] = [];
    for (let i = 1; i <= 5; i += 1) statuses.push((await from(`2001:db8:5:6::${i.toString(16)}`)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429]);
    // The next /64 and a neighbouring IPv4 address each have their own.
    expect((await from('2001:db8:5:7::1')).status).toBe(200);
    for (let i = 0; i < 4; i += 1) expect((await from('198.51.100.1')).status).toBe(200);
    expect((await from('198.51.100.2')).status).toBe(200);
  });
});
