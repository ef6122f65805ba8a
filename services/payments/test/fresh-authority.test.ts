// Authority read fresh: every admin and money route of payments (packages/contracts freshAuthorityRoutes)
// decides on what auth says of the caller now, never on the token's role alone. A token that still says
// admin after a demotion, or belongs to an account deleted since, is refused on each one, and auth is
// asked once per request.
import { freshAuthorityRoutes } from '@omc/contracts';
import { samplePath } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUserId, startHarness, type Harness } from './harness.js';

const routes = freshAuthorityRoutes().filter((r) => r.service === 'payments');

describe('every admin and money route of payments asks auth', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  const send = (route: (typeof routes)[number], token: string, userId: string) =>
    h.app.inject({
      method: route.method,
      url:
        route.method === 'GET' && route.query
          ? `${samplePath(route.path)}?userId=${userId}`
          : samplePath(route.path),
      headers: { authorization: `Bearer ${token}` },
      ...(route.method === 'GET' ? {} : { payload: {} }),
    });

  it('lists the admin money views among them', () => {
    const listed = routes.map((r) => `${r.method} ${r.path}`);
    expect(listed).toEqual(expect.arrayContaining(['GET /api/admin/purchases', 'GET /api/admin/payouts']));
  });

  it("refuses a demoted admin's token on every admin route, asking auth each time", async () => {
    const sub = newUserId();
    const token = await h.token({ sub, role: 'admin' });
    h.auth.roles.set(sub, 'standard');
    const answered: string[] = [];
    for (const route of routes.filter((r) => r.auth === 'admin')) {
      const calls = h.auth.calls;
      const answer = await send(route, token, sub);
      if (answer.statusCode !== 403) answered.push(`${route.method} ${route.path}: ${answer.statusCode}`);
      expect(h.auth.calls, `${route.method} ${route.path} asked auth`).toBe(calls + 1);
    }
    expect(answered).toEqual([]);
  });

  it("refuses a deleted account's token on every admin and money route", async () => {
    const sub = newUserId();
    const token = await h.token({ sub, role: 'admin' });
    h.auth.deleted.add(sub);
    const answered: string[] = [];
    for (const route of routes) {
      const answer = await send(route, token, sub);
      if (answer.statusCode !== 401) answered.push(`${route.method} ${route.path}: ${answer.statusCode}`);
    }
    expect(answered).toEqual([]);
  });
});
