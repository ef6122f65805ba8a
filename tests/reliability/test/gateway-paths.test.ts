// Header and path tricks through the gateway: nothing from outside reaches a service's health, metrics
// or internal routes, however the path is spelled, and no trick makes the gateway fail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invariant, reportFigures, suite, violations } from '../src/context.js';
import { registerPlayer, type Player } from '../src/http.js';
import { rawRequest, type RawAnswer } from '../src/raw.js';

let player: Player;
/** Each upstream's own readiness keys, to recognise its answer if a trick got through. */
const upstreamCheckKeys = new Set<string>();

beforeAll(async () => {
  player = await registerPlayer('paths');
  for (const [name, url] of Object.entries(suite().urls)) {
    if (name === 'gateway') continue;
    const body = (await fetch(`${url}/readyz`)
      .then((r) => r.json())
      .catch(() => ({}))) as { checks?: Record<string, string> };
    for (const key of Object.keys(body.checks ?? {})) upstreamCheckKeys.add(key);
  }
});
afterAll(reportFigures);

function leaked(answer: RawAnswer): string | undefined {
  if (answer.status < 200 || answer.status >= 300) return undefined;
  if (/^# (HELP|TYPE) /m.test(answer.text)) return 'Prometheus metrics';
  if (answer.contentType.includes('json')) {
    try {
      const body = JSON.parse(answer.text);
      const keys = Object.keys(body?.checks ?? {});
      if (keys.some((k) => ['postgres', 'redis', 'nats', 'emulator'].includes(k) || upstreamCheckKeys.has(k)))
        return "a service's readiness report";
      if (body?.status === 'ok' && Object.keys(body).length === 1) return "a service's liveness answer";
    } catch {
      // not JSON after all
    }
  }
  return undefined;
}

const internals = [
  'readyz',
  'healthz',
  'metrics',
  'internal',
  'internal/state',
  'internal/users',
  'documentation/json',
];
const prefixes = [
  '/api/user',
  '/api/game',
  '/api/payments',
  '/api/winners',
  '/api/admin/users',
  '/socket.io',
];
const spellings = (target: string): string[] => [
  `/../${target}`,
  `/%2e%2e/${target}`,
  `/%2E%2E%2F${target}`,
  `/..%2f${target}`,
  `/..%2F..%2F${target}`,
  `/%252e%252e%252f${target}`,
  `/.%2e/${target}`,
  `/..;/${target}`,
  `/..\\${target}`,
  `//${target}`,
  `/./${target}`,
  `/%2f${target}`,
  `/${target}`,
  `/${target}%00`,
  `/${target}?`,
  `/${target}#`,
];

describe("paths that try to reach a service's own routes", () => {
  it("never return a service's health, metrics or internals, and never a 5xx", async () => {
    let tried = 0;
    for (const prefix of prefixes) {
      for (const target of internals) {
        for (const path of spellings(target)) {
          const answer = await rawRequest('GET', prefix + path);
          tried += 1;
          const leak = leaked(answer);
          invariant(
            `GET ${prefix + path} does not leak`,
            leak === undefined,
            `${leak}: ${answer.status} ${answer.text.slice(0, 120)}`,
          );
          invariant(
            `GET ${prefix + path} is not a 5xx`,
            answer.status > 0 && answer.status < 500,
            answer.status,
          );
        }
      }
    }
    expect(tried).toBeGreaterThan(500);
    expect(violations()).toEqual([]);
  });

  it('internal routes and upstream health are not reachable at the top level either', async () => {
    for (const path of [
      '/internal',
      '/internal/state',
      '/internal/users/1',
      '/api/internal/state',
      '/api/game/internal/state',
      '/api/payments/internal/ledger',
      '/api/user/internal/users',
      '/%69nternal/state',
      '/api/%67ame/internal/state',
    ]) {
      for (const method of ['GET', 'POST']) {
        const answer = await rawRequest(
          method,
          path,
          method === 'POST'
            ? { 'content-type': 'application/json', authorization: `Bearer ${player.token}` }
            : {},
          method === 'POST' ? '{}' : undefined,
        );
        invariant(
          `${method} ${path} is not served from inside`,
          answer.status >= 400 || !answer.contentType.includes('json'),
          `${answer.status} ${answer.text.slice(0, 120)}`,
        );
        invariant(`${method} ${path} is not a 5xx`, answer.status > 0 && answer.status < 500, answer.status);
      }
    }
    expect(violations()).toEqual([]);
  });
});

describe("the gateway's own health, readiness and metrics", () => {
  it('answer on its internal listener only: the public port gives the JSON 404, however asked', async () => {
    for (const path of ['/metrics', '/readyz', '/healthz', '/metrics?x=1', '/readyz#', '/healthz?']) {
      for (const method of ['GET', 'HEAD', 'POST']) {
        const answer = await rawRequest(method, path);
        invariant(
          `${method} ${path} on the public port is the JSON 404`,
          answer.status === 404 &&
            answer.contentType.includes('application/json') &&
            (method === 'HEAD' || JSON.parse(answer.text).code === 'NOT_FOUND'),
          `${answer.status} ${answer.contentType} ${answer.text.slice(0, 120)}`,
        );
        invariant(
          `${method} ${path} on the public port does not leak`,
          leaked(answer) === undefined,
          answer.text.slice(0, 120),
        );
      }
    }
    // The internal listener is where the kubelet and Prometheus find them.
    const internal = suite().urls.gateway!;
    invariant('the internal listener is not the public port', internal !== suite().gatewayUrl, internal);
    const ready = await fetch(`${internal}/readyz`);
    invariant('the internal listener answers /readyz', ready.status === 200, ready.status);
    const metrics = await fetch(`${internal}/metrics`).then((r) => r.text());
    invariant('the internal listener answers /metrics', /^# HELP /m.test(metrics), metrics.slice(0, 120));
    expect(violations()).toEqual([]);
  });
});

describe('headers and request targets that try to redirect the gateway', () => {
  it('an absolute-form target or a Host header naming a service does not reach it', async () => {
    // Every process's own port, the gateway's internal listener among them.
    for (const url of Object.values(suite().urls)) {
      const inside = new URL(url);
      for (const path of ['/metrics', '/readyz']) {
        const absolute = await rawRequest('GET', `${url}${path}`);
        invariant(
          `absolute-form ${url}${path} does not leak`,
          leaked(absolute) === undefined && absolute.status < 500 && absolute.status > 0,
          `${absolute.status} ${absolute.text.slice(0, 120)}`,
        );
        const host = await rawRequest('GET', `/api/game${path}`, { host: inside.host });
        invariant(
          `Host: ${inside.host} on /api/game${path} does not leak`,
          leaked(host) === undefined && host.status < 500 && host.status > 0,
          `${host.status} ${host.text.slice(0, 120)}`,
        );
      }
    }
    expect(violations()).toEqual([]);
  });

  it('rewrite headers are ignored', async () => {
    const headers = [
      'x-original-url',
      'x-rewrite-url',
      'x-forwarded-prefix',
      'x-forwarded-path',
      'x-envoy-original-path',
    ];
    for (const header of headers) {
      for (const value of ['/metrics', '/readyz', '/internal/state']) {
        const answer = await rawRequest('GET', '/api/game/rules', { [header]: value });
        invariant(
          `${header}: ${value} is ignored`,
          answer.status === 200 && answer.text.includes('roundTarget'),
          `${answer.status} ${answer.text.slice(0, 120)}`,
        );
      }
    }
    expect(violations()).toEqual([]);
  });

  it('request smuggling shapes are refused, not passed on', async () => {
    const both = await rawRequest(
      'POST',
      '/api/game/click',
      { 'content-length': '4', 'transfer-encoding': 'chunked', authorization: `Bearer ${player.token}` },
      '0\r\n\r\n',
    );
    invariant(
      'Content-Length with Transfer-Encoding is refused',
      both.status === 400 || both.status === 0,
      both.status,
    );
    const spaced = await rawRequest(
      'GET',
      '/api/game/rules',
      { 'transfer-encoding': ' chunked' },
      '0\r\n\r\n',
    );
    invariant('an obfuscated Transfer-Encoding is not a 5xx', spaced.status < 500, spaced.status);
    expect((await rawRequest('GET', '/api/game/rules')).status).toBe(200);
    expect(violations()).toEqual([]);
  });
});
