// Text Postgres cannot store (a NUL, bytes that are not UTF-8, a lone surrogate) in any string of any
// route of the catalogue is a 400 naming the field, from the server every service and the gateway are
// built on: each route is mounted here with its own schemas and a handler that would answer 200.
import { ErrorBody, ROUTES, type RouteContract } from '@omc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createServer, type App } from '../src/index.js';

let app: App;

beforeAll(async () => {
  app = createServer({ name: 'text-guard', logger: false });
  for (const route of ROUTES) {
    app.route({
      method: route.method,
      url: route.path,
      schema: {
        ...(route.body ? { body: route.body } : {}),
        ...(route.query ? { querystring: route.query } : {}),
        ...(route.params ? { params: route.params } : {}),
      },
      handler: async () => ({ served: true }),
    });
  }
  await app.ready();
});
afterAll(() => app.close());

const label = (r: RouteContract) => `${r.method} ${r.path}`;

function objectKeys(schema: unknown): string[] {
  let inner: any = schema;
  while (inner && !(inner instanceof z.ZodObject) && inner.def?.innerType) inner = inner.def.innerType;
  return inner instanceof z.ZodObject ? Object.keys(inner.shape) : [];
}

const HASHED = new Set(['password', 'currentPassword', 'newPassword']);
/** A route's path with every parameter filled in. */
const filled = (route: RouteContract, value: string) => route.path.replace(/:\w+/g, value);

async function expectRefused(what: string, answer: Awaited<ReturnType<App['inject']>>, field: string) {
  expect(answer.statusCode, `${what}: ${answer.body}`).toBe(400);
  const body = ErrorBody.parse(answer.json());
  expect(body.code, what).toBe('BAD_REQUEST');
  expect(body.field, what).toBe(field);
  expect(body.message, what).toMatch(/NUL|UTF-8|surrogate/);
}

describe('every route of the catalogue', () => {
  it('refuses a NUL in each body field, naming it', async () => {
    for (const route of ROUTES.filter((r) => r.body)) {
      for (const field of objectKeys(route.body).filter((f) => !HASHED.has(f))) {
        const answer = await app.inject({
          method: route.method,
          url: filled(route, '1'),
          payload: { [field]: `a\u0000b` },
        });
        await expectRefused(`NUL in ${field} of ${label(route)}`, answer, field);
      }
    }
  });

  it('refuses a lone surrogate in each body field, and in a nested one', async () => {
    for (const route of ROUTES.filter((r) => r.body)) {
      for (const field of objectKeys(route.body).filter((f) => !HASHED.has(f))) {
        const answer = await app.inject({
          method: route.method,
          url: filled(route, '1'),
          headers: { 'content-type': 'application/json' },
          payload: `{"${field}":"a\\ud800b"}`,
        });
        await expectRefused(`surrogate in ${field} of ${label(route)}`, answer, field);
      }
      const nested = await app.inject({
        method: route.method,
        url: filled(route, '1'),
        payload: { extra: [{ deep: 'x\u0000' }] },
      });
      await expectRefused(`NUL nested in ${label(route)}`, nested, 'extra.0.deep');
    }
  });

  it('refuses a body whose bytes are not UTF-8', async () => {
    for (const route of ROUTES.filter((r) => r.body)) {
      const answer = await app.inject({
        method: route.method,
        url: filled(route, '1'),
        headers: { 'content-type': 'application/json' },
        payload: Buffer.concat([Buffer.from('{"a":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]),
      });
      await expectRefused(`bad bytes in the body of ${label(route)}`, answer, 'body');
    }
  });

  it('refuses a NUL, bad UTF-8 or a lone surrogate in each query field, and in any query', async () => {
    for (const route of ROUTES) {
      const fields = [...objectKeys(route.query), 'q'];
      for (const field of fields) {
        for (const value of ['%00', 'a%00b', '%FF', '%ED%A0%80']) {
          const answer = await app.inject({
            method: route.method,
            url: `${filled(route, '1')}?${field}=${value}`,
          });
          await expectRefused(`${field}=${value} on ${label(route)}`, answer, field);
        }
      }
      const key = await app.inject({ method: route.method, url: `${filled(route, '1')}?a%00=1` });
      await expectRefused(`NUL in a query key on ${label(route)}`, key, 'query');
    }
  });

  it('refuses a NUL or bad UTF-8 in each path parameter', async () => {
    for (const route of ROUTES.filter((r) => r.path.includes(':'))) {
      for (const value of ['a%00b', '%C0%80', '%FF']) {
        const answer = await app.inject({ method: route.method, url: filled(route, value) });
        await expectRefused(`${value} in the path of ${label(route)}`, answer, 'path');
      }
    }
  });

  it('GET /api/admin/users?query=%00 is a 400 naming query', async () => {
    const answer = await app.inject({ method: 'GET', url: '/api/admin/users?query=%00' });
    await expectRefused('query=%00', answer, 'query');
  });
});

describe('what stays accepted', () => {
  it('a password holds any character, being only hashed', async () => {
    const answer = await app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { emailOrUsername: 'someone', password: 'tab\there\u0000nul' },
    });
    expect(answer.statusCode).toBe(200);
  });

  it('well-formed text, paired surrogates and a stray percent pass', async () => {
    const answer = await app.inject({
      method: 'GET',
      url: `/api/admin/users?query=${encodeURIComponent('Zoë 😀')}&x=100%&y=a+b`,
    });
    expect(answer.statusCode, answer.body).toBe(200);
  });
});
