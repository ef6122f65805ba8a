// Bad input on every auth route of the catalogue: never a 500, never a hang; a 4xx with the error
// envelope. Sent with an admin's token so the admin routes also reach their validation.
import { ErrorBody, ROUTES } from '@omc/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, bearer, freshIp, loginToken, startAuth, type AuthHarness } from './support.js';

const routes = ROUTES.filter((r) => r.service === 'auth');
const megabyte = JSON.stringify({ username: 'a'.repeat(1024 * 1024), email: 'a@b.co', password: 'secret1' });
const tenKb = 'u'.repeat(10 * 1024);

const bodies: [string, { payload: string; contentType?: string }][] = [
  ['not JSON', { payload: '{"username": "abc", ' }],
  ['a JSON string', { payload: '"hello"' }],
  ['a JSON array', { payload: '[1, 2, 3]' }],
  ['null', { payload: 'null' }],
  ['an empty body', { payload: '' }],
  [
    'wrong types',
    {
      payload: JSON.stringify({
        username: 42,
        email: ['a@b.co'],
        password: { x: 1 },
        emailOrUsername: true,
        language: 7,
        currentPassword: null,
        newPassword: 1,
        role: 3,
      }),
    },
  ],
  ['missing fields', { payload: '{}' }],
  ['a megabyte of body', { payload: megabyte }],
  [
    'a 10 KB username and fields',
    {
      payload: JSON.stringify({
        username: tenKb,
        email: `${tenKb}@b.co`,
        password: tenKb,
        emailOrUsername: tenKb,
        currentPassword: tenKb,
        newPassword: tenKb,
        language: tenKb,
        role: tenKb,
      }),
    },
  ],
  [
    'unicode and control characters',
    {
      payload: JSON.stringify({
        username: 'ab\u0000c\u202e',
        email: 'a\u0000@b.co',
        password: '\ud800',
        emailOrUsername: '\u0000',
        language: 'es\u0000',
      }),
    },
  ],
  [
    'a prototype-pollution attempt',
    { payload: '{"__proto__": {"role": "admin"}, "constructor": {"prototype": {"x": 1}}}' },
  ],
  ['text/plain', { payload: 'username=abc', contentType: 'text/plain' }],
  ['form encoding', { payload: 'username=abc&password=x', contentType: 'application/x-www-form-urlencoded' }],
];

describe('malformed input never yields a 500', () => {
  let h: AuthHarness;
  let adminToken: string;
  beforeAll(async () => {
    h = await startAuth();
    adminToken = await loginToken(h.app, ADMIN.username, ADMIN.password);
  });
  afterAll(async () => {
    await h?.close();
  });

  const cases = routes.flatMap((route) =>
    bodies.map(([name, body]) => [route.method, route.path, name, body] as const),
  );

  it.each(cases)('%s %s with %s answers a 4xx envelope', async (method, path, _name, body) => {
    const response = await h.app.inject({
      method,
      url: path,
      payload: body.payload,
      headers: {
        ...bearer(adminToken),
        'content-type': body.contentType ?? 'application/json',
        'x-forwarded-for': freshIp(),
      },
      cookies: { omc_refresh: 'garbage' },
    });
    // A route without a body ignores a well-formed one; everything else is refused with a 4xx.
    expect(response.statusCode, response.body).toBeLessThan(500);
    if (response.statusCode >= 400) {
      expect(ErrorBody.parse(response.json()).message.length).toBeGreaterThan(0);
    }
  });

  it('refuses a megabyte of body with 413 and says why', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: megabyte,
      headers: { 'content-type': 'application/json' },
    });
    expect(response.statusCode).toBe(413);
    expect(ErrorBody.parse(response.json()).message).toBe('Request body is too large');
  });

  it('refuses a 10 KB username on register and login with a 400 naming the field', async () => {
    const register = await h.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { username: tenKb, email: 'a@b.co', password: 'secret1' },
    });
    expect(register.statusCode).toBe(400);
    expect(ErrorBody.parse(register.json()).field).toBe('username');
    const login = await h.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { emailOrUsername: tenKb, password: 'secret1' },
    });
    expect(login.statusCode).toBe(400);
    expect(ErrorBody.parse(login.json()).field).toBe('emailOrUsername');
  });

  it('refuses an oversized or odd Authorization header and refresh cookie with 401', async () => {
    for (const authorization of [
      `Bearer ${'a'.repeat(8000)}`,
      'Bearer a.b.c',
      'Bearer',
      'Bearer \u00ff\u00fe',
      `Bearer ${tenKb}.${tenKb}.${tenKb}`,
    ]) {
      const response = await h.app.inject({ url: '/api/user/profile', headers: { authorization } });
      expect(response.statusCode).toBe(401);
    }
    for (const cookie of ['', 'x'.repeat(4000), '%%%', '\u0000']) {
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/user/refresh',
        headers: { cookie: `omc_refresh=${encodeURIComponent(cookie)}` },
      });
      expect(response.statusCode).toBe(401);
    }
  });
});

describe('control characters', () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth();
  });
  afterAll(async () => {
    await h?.close();
  });

  it.each([
    ['/api/user/login', { emailOrUsername: 'a\u0007b', password: 'secret1' }, 'emailOrUsername'],
    ['/api/user/register', { username: 'abc', email: 'a\u0001@b.co', password: 'secret1' }, 'email'],
  ])('%s refuses %j with a 400 naming %s', async (url, payload, field) => {
    const response = await h.app.inject({ method: 'POST', url, payload });
    expect(response.statusCode).toBe(400);
    expect(ErrorBody.parse(response.json())).toMatchObject({
      field,
      message: `${field} must not contain control characters`,
    });
  });

  it('accepts any character in a password, since only its hash is stored', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: '/api/user/register',
      payload: { username: 'ctrl_pass', email: 'ctrl@example.com', password: 'tab\there\u0000nul' },
    });
    expect(response.statusCode).toBe(201);
    const login = await h.app.inject({
      method: 'POST',
      url: '/api/user/login',
      payload: { emailOrUsername: 'ctrl_pass', password: 'tab\there\u0000nul' },
    });
    expect(login.statusCode).toBe(200);
  });
});
