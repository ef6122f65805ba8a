// The internal client against a real HTTP server standing in for the callee: what it sends (the route's
// method and path, the caller's credential addressed to the callee, the player's token and request id,
// the JSON body, the query) and the four outcomes it reads (answered, refused, unreadable, unanswered).
import type { AddressInfo } from 'node:net';
import { INTERNAL, SERVICE_CREDENTIAL_HEADER } from '@omc/contracts';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  InternalClient,
  internalClientFrom,
  internalPath,
  outcomeReason,
  ServiceCredentials,
  type Caller,
} from '../src/index.js';
import { keyPair } from './keys.js';

const authKeys = keyPair();
const auth = new ServiceCredentials('auth', { privateKey: authKeys.privateKey, callerKeys: {} });
/** How payments and the game check a credential of auth's. */
const checkerOf = (self: 'payments' | 'game') =>
  new ServiceCredentials(self, {
    privateKey: keyPair().privateKey,
    callerKeys: { auth: authKeys.publicKey },
  });

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

let server: FastifyInstance;
let base: string;
const seen: Seen[] = [];

beforeAll(async () => {
  server = Fastify();
  server.addHook('onRequest', async (request) => {
    seen.push({ method: request.method, url: request.url, headers: request.headers, body: undefined });
  });
  server.addHook('preHandler', async (request) => {
    seen[seen.length - 1]!.body = request.body;
  });
  server.post('/internal/payout-email/:requestId/token', async (request, reply) => {
    const { requestId } = request.params as { requestId: string };
    if (requestId === 'gone')
      return reply.code(410).send({ message: 'no longer', code: 'GONE', field: 'id' });
    if (requestId === 'busy') return reply.code(429).header('retry-after', '7').send({ message: 'later' });
    if (requestId === 'short') return { token: 'short' };
    if (requestId === 'text') return reply.type('text/plain').send('not json');
    if (requestId === 'broken') return reply.code(500).type('text/plain').send('oops');
    if (requestId === 'slow') await new Promise((r) => setTimeout(r, 300));
    return { token: 'a-token-of-sixteen-characters' };
  });
  server.put('/internal/users/:userId/role', async (request) => ({
    role: (request.body as { role: string }).role,
  }));
  server.get('/internal/wins', async () => ({ wins: [] }));
  await server.listen({ port: 0, host: '127.0.0.1' });
  base = `http://127.0.0.1:${(server.server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await server.close();
});

/** Payments and the game's internal listener here; the game's main listener a closed port. */
const client = (timeoutMs = 2000, gameMain = 'http://127.0.0.1:9') =>
  new InternalClient({
    credentials: auth,
    urls: { payments: base, game: gameMain },
    internalUrls: { game: base },
    timeoutMs: { payments: timeoutMs, game: timeoutMs },
  });

const caller: Caller = {
  authorization: 'Bearer player-token',
  requestId: 'req-1',
  log: pino({ level: 'silent' }),
};

describe('the internal client', () => {
  it('calls the route by its method and path, with a credential addressed to its callee', async () => {
    const answer = await client().call(INTERNAL.payoutEmailToken, { params: { requestId: 'a b/c' } });
    expect(answer).toEqual({
      kind: 'answered',
      status: 200,
      data: { token: 'a-token-of-sixteen-characters' },
    });
    const request = seen.at(-1)!;
    expect([request.method, request.url]).toEqual(['POST', '/internal/payout-email/a%20b%2Fc/token']);
    expect(checkerOf('payments').callerOf(request.headers[SERVICE_CREDENTIAL_HEADER])).toBe('auth');
    expect(request.headers['content-type']).toBeUndefined();
    expect(request.headers.authorization).toBeUndefined();
  });

  it('sends the body as JSON and the caller’s token and request id, to the listener the route is on', async () => {
    const answer = await client().call(INTERNAL.userRole, {
      params: { userId: 'u1' },
      body: { role: 'admin', roleVersion: 3 },
      caller,
    });
    expect(answer).toEqual({ kind: 'answered', status: 200, data: { role: 'admin' } });
    const request = seen.at(-1)!;
    expect(request.url).toBe('/internal/users/u1/role');
    expect(request.body).toEqual({ role: 'admin', roleVersion: 3 });
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers.authorization).toBe('Bearer player-token');
    expect(request.headers['x-request-id']).toBe('req-1');
    expect(checkerOf('game').callerOf(request.headers[SERVICE_CREDENTIAL_HEADER])).toBe('auth');
  });

  it('sends the query', async () => {
    const answer = await client(2000, base).call(INTERNAL.wins, {
      query: { since: '2026-01-01T00:00:00Z', limit: '5' },
    });
    expect(answer.kind).toBe('answered');
    expect(seen.at(-1)!.url).toBe('/internal/wins?since=2026-01-01T00%3A00%3A00Z&limit=5');
  });

  it('reads a refusal’s status, error fields and headers', async () => {
    const gone = await client().call(INTERNAL.payoutEmailToken, { params: { requestId: 'gone' } });
    expect(gone).toMatchObject({
      kind: 'refused',
      status: 410,
      body: { message: 'no longer', code: 'GONE', field: 'id' },
    });
    const busy = await client().call(INTERNAL.payoutEmailToken, { params: { requestId: 'busy' } });
    expect(busy.kind === 'refused' && busy.headers.get('retry-after')).toBe('7');
    const broken = await client().call(INTERNAL.payoutEmailToken, { params: { requestId: 'broken' } });
    expect(broken).toMatchObject({ kind: 'refused', status: 500, body: {} });
  });

  it('tells an answer that is not the route’s from one that is', async () => {
    for (const requestId of ['short', 'text']) {
      const answer = await client().call(INTERNAL.payoutEmailToken, { params: { requestId } });
      expect(answer).toEqual({ kind: 'unreadable', status: 200 });
      expect(outcomeReason(answer)).toBe('answer does not match the contract');
    }
  });

  it('ends a call past its deadline, and one nobody answers, as unanswered', async () => {
    const late = await client(50).call(INTERNAL.payoutEmailToken, { params: { requestId: 'slow' } });
    expect(late).toEqual({ kind: 'unanswered', reason: 'timed out' });
    // The wins route is on the game's main listener, a closed port here.
    const nobody = await client().call(INTERNAL.wins);
    expect(nobody.kind).toBe('unanswered');
  });

  it('refuses to call with a parameter missing or a callee it has no address for', async () => {
    expect(() => internalPath(INTERNAL.userRole, {})).toThrow(/userId is missing/);
    const noPayments = new InternalClient({ credentials: auth, urls: {}, timeoutMs: {} });
    await expect(noPayments.call(INTERNAL.refund, { params: { id: 'p' } })).rejects.toThrow(
      /no internal address/,
    );
  });

  it("is made from the addresses and deadlines a service's configuration names", async () => {
    const made = internalClientFrom(auth, {
      PAYMENTS_URL: base,
      GAME_INTERNAL_URL: base,
      UPSTREAM_TIMEOUT_MS: 50,
    });
    const role = await made.call(INTERNAL.userRole, {
      params: { userId: 'u2' },
      body: { role: 'standard', roleVersion: 1 },
    });
    expect(role.kind).toBe('answered');
    // No deadline of its own for payments: the upstream one.
    const slow = await made.call(INTERNAL.payoutEmailToken, { params: { requestId: 'slow' } });
    expect(slow).toEqual({ kind: 'unanswered', reason: 'timed out' });
    const own = internalClientFrom(auth, {
      PAYMENTS_URL: base,
      PAYMENTS_TIMEOUT_MS: 2000,
      UPSTREAM_TIMEOUT_MS: 50,
    });
    expect((await own.call(INTERNAL.payoutEmailToken, { params: { requestId: 'slow' } })).kind).toBe(
      'answered',
    );
    await expect(made.call(INTERNAL.account)).rejects.toThrow(/no internal address/);
  });
});
