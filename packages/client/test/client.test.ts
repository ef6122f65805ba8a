import { ROUTES } from '@omc/contracts';
import { describe, expect, it } from 'vitest';
import { ApiClientError, createClient, operations, pathOf, refusesSession } from '../src/index.js';

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

  const answer =
    (status: number, body: unknown, headers: Record<string, string> = {}) =>
    async () =>
      new Response(JSON.stringify(body), {
        status,
        headers: { 'content-type': 'application/json', ...headers },
      });

  it('reads an error body leniently, with Retry-After, and tells a non-JSON answer apart', async () => {
    const busy = createClient({
      fetch: answer(503, { error: 'busy', code: 'OVERLOADED' }, { 'retry-after': '2' }),
    });
    await expect(busy.call(operations.click)).rejects.toMatchObject({
      status: 503,
      serverMessage: 'busy',
      code: 'OVERLOADED',
      retryAfterS: 2,
      json: true,
    });
    const page = createClient({ fetch: async () => new Response('<html>', { status: 502 }) });
    await expect(page.call(operations.click)).rejects.toMatchObject({ status: 502, json: false });
  });

  it('reports every refusal of the session that sent a token, on any call', async () => {
    const ended = { message: 'This session has ended', code: 'UNAUTHORIZED' };
    const suspended = { message: 'This account is suspended', code: 'ACCOUNT_SUSPENDED' };
    const cases = [
      { op: operations.adminUsers, body: ended, status: 401, token: 'tok', refused: true },
      { op: operations.playerPurchases, body: suspended, status: 403, token: 'tok', refused: true },
      { op: operations.collect, body: suspended, status: 401, token: 'tok', refused: true },
      // A failed sign-in sends no token: nothing to end.
      {
        op: operations.login,
        body: { message: 'Invalid credentials', code: 'UNAUTHORIZED' },
        status: 401,
        token: null,
        refused: false,
      },
      {
        op: operations.click,
        body: { message: 'No clicks left', code: 'FORBIDDEN' },
        status: 403,
        token: 'tok',
        refused: false,
      },
    ];
    for (const { op, body, status, token, refused } of cases) {
      const told: [ApiClientError, string | undefined][] = [];
      const client = createClient({
        fetch: answer(status, body),
        onSessionRefused: (error, sent) => told.push([error, sent]),
      });
      const input = {
        token,
        query: { userId: '1b0f6a52-3f43-4a43-9c43-6f1c1d1e1f10' },
        body: { emailOrUsername: 'a', password: 'b' },
      };
      const failure = await client
        .call(op as typeof operations.login, input as never)
        .catch((e: unknown) => e);
      expect(failure, op.path).toBeInstanceOf(ApiClientError);
      expect(
        told.map(([, sent]) => sent),
        op.path,
      ).toEqual(refused ? [token] : []);
      expect(refusesSession(failure as ApiClientError, token ?? undefined), op.path).toBe(refused);
    }
  });

  it("sends a call's own token over the client's, none to the refresh route, and its token to logout", async () => {
    const seen: Record<string, string>[] = [];
    const client = createClient({
      token: () => 'client',
      fetch: async (_url, init) => {
        seen.push(init!.headers as Record<string, string>);
        return new Response(JSON.stringify({ token: 'next' }), {
          status: 200,
          headers: { 'content-type': 'application/json' },
        });
      },
    });
    await client.call(operations.refresh);
    await client.call(operations.refresh, { token: 'own' });
    await client.call(operations.gameState, { token: 'own' }).catch(() => undefined);
    await client.call(operations.gameState, { token: null }).catch(() => undefined);
    // Logout ends the session its access token names even when the cookie is gone.
    await client.call(operations.logout, { token: 'own' }).catch(() => undefined);
    await client.call(operations.logout, { token: null }).catch(() => undefined);
    expect(seen.map((h) => h.authorization)).toEqual([
      undefined,
      undefined,
      'Bearer own',
      undefined,
      'Bearer own',
      undefined,
    ]);
  });
});
