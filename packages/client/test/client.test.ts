import { ROUTES } from '@omc/contracts';
import { describe, expect, it } from 'vitest';
import { ApiClientError, createClient, operations, pathOf } from '../src/index.js';

describe('the typed client', () => {
  it('has one operation per catalogue route, with the very same schemas', () => {
    const ops = Object.values(operations);
    expect(ops.map((o) => `${o.method} ${o.path}`).sort()).toEqual(
      ROUTES.map((r) => `${r.method} ${r.path}`).sort(),
    );
    for (const route of ROUTES) {
      const op = ops.find((o) => o.method === route.method && o.path === route.path)!;
      expect(op.response, route.path).toBe(route.response);
      expect(op.body, route.path).toBe(route.body);
      expect(op.query, route.path).toBe(route.query);
      expect(op.params, route.path).toBe(route.params);
      expect(Boolean(op.form), route.path).toBe(route.bodyType === 'form');
    }
  });

  it('sends the path parameters, query, body and token, and parses the answer', async () => {
    const seen: { url: string; init: RequestInit }[] = [];
    const client = createClient({
      baseUrl: 'https://clicks.example',
      token: () => 'tok',
      fetch: async (url, init) => {
        seen.push({ url: String(url), init: init! });
        return new Response(
          JSON.stringify({
            message: 'Account suspended',
            user: {
              id: '1b0f6a52-3f43-4a43-9c43-6f1c1d1e1f10',
              username: 'bea',
              email: null,
              role: 'standard',
              verified: false,
              suspended: true,
              suspendedReason: 'farm',
              suspendedAt: null,
              createdAt: '2026-11-01T00:00:00.000Z',
            },
          }),
          { status: 200, headers: { 'content-type': 'application/json' } },
        );
      },
    });
    const answer = await client.call(operations.suspendUser, {
      params: { id: '1b0f6a52-3f43-4a43-9c43-6f1c1d1e1f10' },
      body: { reason: 'farm' },
    });
    expect(answer.user.suspended).toBe(true);
    expect(seen[0]!.url).toBe(
      'https://clicks.example/api/admin/users/1b0f6a52-3f43-4a43-9c43-6f1c1d1e1f10/suspend',
    );
    expect(seen[0]!.init.headers).toMatchObject({
      authorization: 'Bearer tok',
      'content-type': 'application/json',
    });
    expect(JSON.parse(String(seen[0]!.init.body))).toEqual({ reason: 'farm' });
  });

  it('turns an error answer into ApiClientError with the message, code and field', async () => {
    const client = createClient({
      fetch: async () =>
        new Response(
          JSON.stringify({
            message: 'limit must be…',
            error: 'limit must be…',
            msg: 'limit must be…',
            code: 'BAD_REQUEST',
            field: 'limit',
          }),
          {
            status: 400,
            headers: { 'content-type': 'application/json' },
          },
        ),
    });
    const failure = await client
      .call(operations.adminUsers, { query: { limit: 500 } })
      .catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApiClientError);
    expect(failure).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      field: 'limit',
      message: 'limit must be…',
    });
    expect(() => pathOf('/api/user/sessions/:id')).toThrow(/id/);
  });
});
