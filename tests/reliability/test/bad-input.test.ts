// Bad input on every public route, generated from the route catalogue in packages/contracts, so a route
// added there is attacked the day it appears: never a 500 and never a hang, always a 4xx whose message
// names the problem.
import { ROUTES, type RouteContract } from '@omc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { figures, invariant, reportFigures, violations } from '../src/context.js';
import { VALID_BODIES } from '../src/samples.js';
import { judged, loginAdmin, registerPlayer, type Answer, type Player } from '../src/http.js';

let admin: Player;
let player: Player;
/** Takes the destructive routes (delete-account), so the player above keeps its account. */
let victim: Player;

beforeAll(async () => {
  admin = await loginAdmin();
  player = await registerPlayer('input');
  victim = await registerPlayer('victim');
});
afterAll(reportFigures);

const label = (r: RouteContract) => `${r.method} ${r.path}`;
const tokenFor = (r: RouteContract) =>
  r.auth === 'admin'
    ? admin.token
    : r.auth === 'none' || r.auth === 'refreshCookie'
      ? undefined
      : r.method === 'DELETE'
        ? victim.token
        : player.token;
const canHaveBody = (r: RouteContract) => r.method !== 'GET';

/** The fields of a route's body schema (an object schema, possibly wrapped). */
function bodyFields(route: RouteContract): string[] {
  let schema: any = route.body;
  while (schema && !(schema instanceof z.ZodObject) && schema.def?.innerType) schema = schema.def.innerType;
  return schema instanceof z.ZodObject ? Object.keys(schema.shape) : [];
}

/** A route that takes no body may ignore one; it must still never fail or hang because of it. */
function expectRefusedOrIgnored(
  route: RouteContract,
  what: string,
  answer: Answer,
  statuses: number[] = [],
): void {
  if (route.body) return expectClientError(what, answer, statuses);
  figures.attacks += 1;
  invariant(
    `${what}: not a 5xx (the route takes no body)`,
    answer.status > 0 && answer.status < 500,
    `${answer.status} ${answer.text.slice(0, 200)}`,
  );
}

function expectClientError(what: string, answer: Answer, statuses: number[] = []): void {
  figures.attacks += 1;
  const detail = `${answer.status} ${answer.text.slice(0, 200)}`;
  invariant(
    `${what}: a 4xx`,
    answer.status >= 400 &&
      answer.status < 500 &&
      (statuses.length === 0 || statuses.includes(answer.status)),
    detail,
  );
  invariant(
    `${what}: a JSON message`,
    typeof answer.body?.message === 'string' && answer.body.message.length > 0,
    detail,
  );
  // The original client reads message, error or msg depending on the call: all three, the same text.
  invariant(
    `${what}: message, error and msg alike`,
    answer.body?.error === answer.body?.message && answer.body?.msg === answer.body?.message,
    detail,
  );
  invariant(`${what}: no stack trace`, !/\bat [\w.<>]+ \(|node:internal|\.ts:\d+/.test(answer.text), detail);
}

const nested = (depth: number) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);

describe('every route from the catalogue, with bad bodies', () => {
  const withBody = ROUTES.filter(canHaveBody);

  it('malformed JSON is a 400', async () => {
    for (const route of withBody) {
      for (const raw of [
        '{"unterminated": ',
        '{a:1}',
        "{'single':'quotes'}",
        '\u0000\u0001',
        '[1,2,',
        'nul',
      ]) {
        const answer = await judged(route.method, route.path, {
          token: tokenFor(route),
          raw,
          headers: { 'content-type': 'application/json' },
        });
        expectRefusedOrIgnored(route, `malformed ${JSON.stringify(raw)} on ${label(route)}`, answer, [400]);
      }
    }
    expect(violations()).toEqual([]);
  });

  it('an oversized body is a 413 (or 400), and the service keeps answering', async () => {
    const big = JSON.stringify({ padding: 'x'.repeat(2 * 1024 * 1024) });
    for (const route of withBody) {
      const answer = await judged(route.method, route.path, {
        token: tokenFor(route),
        raw: big,
        headers: { 'content-type': 'application/json' },
      });
      expectClientError(`2 MB body on ${label(route)}`, answer, [400, 413]);
    }
    expect((await judged('GET', '/api/game/rules')).status).toBe(200);
    expect(violations()).toEqual([]);
  });

  it('deeply nested bodies are refused without harm', async () => {
    for (const route of withBody) {
      for (const raw of [nested(5000), nestedArrays(20000)]) {
        const answer = await judged(route.method, route.path, {
          token: tokenFor(route),
          raw,
          headers: { 'content-type': 'application/json' },
        });
        expectRefusedOrIgnored(
          route,
          `nested body (${raw.length} bytes) on ${label(route)}`,
          answer,
          [400, 413],
        );
      }
    }
    expect(violations()).toEqual([]);
  });

  it('bodies of the wrong shape name the field', async () => {
    for (const route of ROUTES.filter((r) => r.body)) {
      const fields = bodyFields(route);
      // A body whose every field is optional (a password asked only outside the window) may be empty.
      if (!route.body!.safeParse({}).success) {
        const empty = await judged(route.method, route.path, { token: tokenFor(route), body: {} });
        expectClientError(`empty object on ${label(route)}`, empty, [400]);
        invariant(
          `empty object on ${label(route)} names a field`,
          fields.some((f) => JSON.stringify(empty.body ?? {}).includes(f)),
          empty.text.slice(0, 200),
        );
      }
      for (const field of fields) {
        for (const wrong of [{ $gt: '' }, ['a', 'b'], 12345, null, true, 'x'.repeat(5000)]) {
          const valid = VALID_BODIES[route.path];
          const body = { ...(valid ?? Object.fromEntries(fields.map((f) => [f, 'x']))), [field]: wrong };
          const answer = await judged(route.method, route.path, { token: tokenFor(route), body });
          expectClientError(
            `${field}=${JSON.stringify(wrong).slice(0, 20)} on ${label(route)}`,
            answer,
            [400],
          );
          // With every other field valid, the message (or the field property) must say which one is wrong.
          if (valid)
            invariant(
              `${field} bad on ${label(route)} names it`,
              JSON.stringify(answer.body ?? {}).includes(field),
              answer.text.slice(0, 200),
            );
        }
      }
      for (const raw of ['[]', '"text"', '42', 'null']) {
        const answer = await judged(route.method, route.path, {
          token: tokenFor(route),
          raw,
          headers: { 'content-type': 'application/json' },
        });
        expectClientError(`non-object ${raw} on ${label(route)}`, answer, [400]);
      }
    }
    expect(violations()).toEqual([]);
  });

  it('prototype pollution keys change nothing', async () => {
    for (const route of ROUTES.filter((r) => r.body)) {
      const raw =
        '{"__proto__":{"role":"admin","isAdmin":true},"constructor":{"prototype":{"role":"admin"}}}';
      const answer = await judged(route.method, route.path, {
        token: tokenFor(route),
        raw,
        headers: { 'content-type': 'application/json' },
      });
      expectClientError(`__proto__ body on ${label(route)}`, answer, [400]);
    }
    const me = await judged('GET', '/api/user/profile', { token: player.token });
    expect(me.body.role).toBe('standard');
    expect(violations()).toEqual([]);
  });

  it('a body in another content type is refused with a 4xx', async () => {
    for (const route of ROUTES.filter((r) => r.body)) {
      for (const [type, raw] of [
        ['text/plain', 'hello'],
        ['application/x-www-form-urlencoded', 'amount=0.01&role=admin'],
        ['application/xml', '<a>1</a>'],
        [
          'multipart/form-data; boundary=x',
          '--x\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--x--',
        ],
      ] as const) {
        const answer = await judged(route.method, route.path, {
          token: tokenFor(route),
          raw,
          headers: { 'content-type': type },
        });
        expectClientError(`${type} body on ${label(route)}`, answer, [400, 415]);
      }
    }
    expect(violations()).toEqual([]);
  });
});

describe('every route from the catalogue, with text no store can hold', () => {
  const HASHED = new Set(['password', 'currentPassword', 'newPassword']);
  const queryFields = (r: RouteContract): string[] => {
    let schema: any = r.query;
    while (schema && !(schema instanceof z.ZodObject) && schema.def?.innerType) schema = schema.def.innerType;
    return [...(schema instanceof z.ZodObject ? Object.keys(schema.shape) : []), 'q'];
  };

  it('a NUL in any body field is a 400 naming the field', async () => {
    for (const route of ROUTES.filter((r) => r.body)) {
      const fields = bodyFields(route);
      for (const field of fields.filter((f) => !HASHED.has(f))) {
        const valid = VALID_BODIES[route.path] ?? Object.fromEntries(fields.map((f) => [f, 'x']));
        const body = { ...valid, [field]: 'a\u0000b' };
        const answer = await judged(route.method, route.path, { token: tokenFor(route), body });
        expectClientError(`NUL in ${field} on ${label(route)}`, answer, [400]);
        invariant(`NUL in ${field} on ${label(route)} names it`, answer.body?.field === field, answer.text);
      }
    }
    expect(violations()).toEqual([]);
  });

  it('a NUL or bytes that are not UTF-8 in any query field are a 400 naming the field', async () => {
    for (const route of ROUTES) {
      for (const field of queryFields(route)) {
        for (const value of ['%00', 'a%00b', '%FF']) {
          const answer = await judged(route.method, `${route.path}?${field}=${value}`, {
            token: tokenFor(route),
            ...(canHaveBody(route) && route.body ? { body: VALID_BODIES[route.path] ?? {} } : {}),
          });
          expectClientError(`${field}=${value} on ${label(route)}`, answer, [400]);
          invariant(
            `${field}=${value} on ${label(route)} names it`,
            answer.body?.field === field,
            answer.text,
          );
        }
      }
    }
    const users = await judged('GET', '/api/admin/users?query=%00', { token: admin.token });
    expect(users.status, users.text).toBe(400);
    expect(violations()).toEqual([]);
  });
});

describe('every route from the catalogue, with bad queries and headers', () => {
  it('garbage queries never break a route', async () => {
    for (const route of ROUTES) {
      for (const query of [
        '?limit=-1',
        '?limit=abc',
        '?limit=1e309',
        '?cursor=' + 'z'.repeat(300),
        '?__proto__[admin]=1',
        '?a[b][c][d][e][f]=1',
        '?%zz=1',
      ]) {
        figures.attacks += 1;
        const answer = await judged(route.method, route.path + query, {
          token: tokenFor(route),
          ...(canHaveBody(route) && route.body ? { body: {} } : {}),
        });
        invariant(
          `query ${query.slice(0, 30)} on ${label(route)} is not a 5xx`,
          answer.status > 0 && answer.status < 500,
          `${answer.status} ${answer.text.slice(0, 200)}`,
        );
      }
    }
    const winners = await judged('GET', '/api/winners?limit=abc');
    expectClientError('limit=abc on GET /api/winners', winners, [400]);
    invariant(
      'the bad query names limit',
      JSON.stringify(winners.body ?? {}).includes('limit'),
      winners.text.slice(0, 200),
    );
    expect(violations()).toEqual([]);
  });

  it('a huge header or URL is refused, not a 5xx', async () => {
    for (const route of ROUTES.slice(0, 4)) {
      figures.attacks += 2;
      const longUrl = await judged(route.method, `${route.path}?q=${'a'.repeat(100_000)}`, {
        token: tokenFor(route),
      });
      invariant(
        `a 100 kB URL on ${label(route)} is a 4xx`,
        longUrl.status >= 400 && longUrl.status < 500,
        longUrl.status,
      );
      const longHeader = await judged(route.method, route.path, {
        token: tokenFor(route),
        headers: { 'x-padding': 'a'.repeat(100_000) },
      });
      invariant(
        `a 100 kB header on ${label(route)} is a 4xx`,
        longHeader.status >= 400 && longHeader.status < 500,
        longHeader.status,
      );
    }
    expect((await judged('GET', '/api/game/rules')).status).toBe(200);
    expect(violations()).toEqual([]);
  });

  it('an Authorization header that is not a bearer token is a 401', async () => {
    for (const route of ROUTES.filter((r) => r.auth === 'user' || r.auth === 'admin')) {
      for (const value of [
        'Basic YWRtaW46YWRtaW4=',
        'Bearer',
        'Bearer ' + 'a'.repeat(8000),
        'bearer a.b.c',
        'Bearer \u00e9\u00e9.\u00e9.\u00e9',
      ]) {
        figures.attacks += 1;
        const answer = await judged(route.method, route.path, { headers: { authorization: value } });
        invariant(
          `Authorization ${value.slice(0, 16)} on ${label(route)} is a 401 (or 400)`,
          answer.status === 401 || answer.status === 400,
          `${answer.status} ${answer.text.slice(0, 120)}`,
        );
      }
    }
    expect(violations()).toEqual([]);
  });
});
