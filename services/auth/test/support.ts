// Shared by the test files: an auth app on a fresh database with the real Redis and NATS, stand-ins for
// the game and payments services on free ports, and a JetStream consumer that collects auth events.
import { parseEvent, STREAMS, type EventEnvelope, type Subject } from '@omc/contracts';
import {
  freshDatabase,
  generateTokenKeys,
  internalCallHeaders,
  resetNats,
  resetRedis,
  serviceEnv,
  startMailSink,
  type MailSink,
  type KeyPair,
} from '@omc/testkit';
import Fastify, { type FastifyInstance } from 'fastify';
import type { LightMyRequestResponse } from 'fastify';
import { connect, type ConsumerMessages, type NatsConnection } from 'nats';
import { buildApp, start } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';

export const ADMIN = { username: 'root_admin', email: 'admin@example.com', password: 'admin-password-1' };

export type UpstreamMode = 'ok' | 'error' | 'hang' | 'garbage';

/** A small HTTP server answering one GET route with a per-user body, or failing as told. */
export interface StandIn {
  url: string;
  mode: UpstreamMode;
  bodies: Map<string, unknown>;
  fallback: unknown;
  seen: { authorization?: string; requestId?: string }[];
  /** Role changes told directly (PUT /internal/users/:userId/role), answered as `mode` says. */
  roleCalls: { userId: string; body: { role: string; roleVersion: number }; authorization?: string }[];
  /**
   * Payout email links minted (POST /internal/payout-email/:requestId/token, payments' part): the token
   * is `payout-link-<requestId>`, or 410 for a request named in `closedPayoutRequests`.
   */
  closedPayoutRequests: Set<string>;
  /** Suspensions told directly (PUT /internal/users/:userId/suspension). */
  suspensionCalls: {
    userId: string;
    body: { suspended: boolean; reason: string | null; securityVersion: number };
    authorization?: string;
  }[];
  /** Balance batches asked (POST /internal/users/balances): the ids of each call. */
  balanceCalls: string[][];
  /** What the balances batch answers per user id (absent ids are left out), as `mode` says. */
  balances: Map<string, unknown>;
  /** House payouts asked (POST /internal/house-payouts, payments' part), with their caller's headers. */
  housePayoutCalls: { body: Record<string, unknown>; credential?: string }[];
  /** What a house payout answers: 200 with a batch by default. */
  housePayoutAnswer: { status: number; body: unknown };
  close(): Promise<void>;
}

function subjectOf(authorization: string | undefined): string | undefined {
  const payload = authorization?.split(' ')[1]?.split('.')[1];
  if (!payload) return undefined;
  try {
    return JSON.parse(Buffer.from(payload, 'base64url').toString()).sub;
  } catch {
    return undefined;
  }
}

export async function startStandIn(path: string, fallback: unknown): Promise<StandIn> {
  const server: FastifyInstance = Fastify({ logger: false, forceCloseConnections: true });
  const standIn: StandIn = {
    url: '',
    mode: 'ok',
    bodies: new Map(),
    fallback,
    seen: [],
    roleCalls: [],
    closedPayoutRequests: new Set(),
    suspensionCalls: [],
    balanceCalls: [],
    balances: new Map(),
    housePayoutCalls: [],
    housePayoutAnswer: { status: 200, body: { transactionId: 'house-batch-1', amount: 12.5 } },
    close: () => server.close(),
  };
  server.post<{ Body: Record<string, unknown> }>('/internal/house-payouts', async (request, reply) => {
    standIn.housePayoutCalls.push({
      body: request.body,
      credential: request.headers['x-omc-service-credential'] as string | undefined,
    });
    return reply.status(standIn.housePayoutAnswer.status).send(standIn.housePayoutAnswer.body);
  });
  server.post<{ Params: { requestId: string } }>(
    '/internal/payout-email/:requestId/token',
    async (request, reply) => {
      const { requestId } = request.params;
      if (standIn.closedPayoutRequests.has(requestId))
        return reply.status(410).send({ message: 'This payout email request may no longer be confirmed' });
      return { token: `payout-link-${requestId}` };
    },
  );
  server.put<{
    Params: { userId: string };
    Body: { suspended: boolean; reason: string | null; securityVersion: number };
  }>('/internal/users/:userId/suspension', async (request, reply) => {
    standIn.suspensionCalls.push({
      userId: request.params.userId,
      body: request.body,
      authorization: request.headers.authorization,
    });
    if (standIn.mode === 'hang') return new Promise(() => undefined);
    if (standIn.mode === 'error') return reply.status(503).send({ message: 'unavailable' });
    return { suspended: request.body.suspended };
  });
  server.post<{ Body: { userIds: string[] } }>('/internal/users/balances', async (request, reply) => {
    standIn.balanceCalls.push(request.body.userIds);
    if (standIn.mode === 'hang') return new Promise(() => undefined);
    if (standIn.mode === 'error') return reply.status(503).send({ message: 'unavailable' });
    if (standIn.mode === 'garbage') return reply.send({ unexpected: true });
    return {
      balances: Object.fromEntries(
        request.body.userIds
          .filter((id) => standIn.balances.has(id))
          .map((id) => [id, standIn.balances.get(id)]),
      ),
    };
  });
  server.put<{ Params: { userId: string }; Body: { role: string; roleVersion: number } }>(
    '/internal/users/:userId/role',
    async (request, reply) => {
      standIn.roleCalls.push({
        userId: request.params.userId,
        body: request.body,
        authorization: request.headers.authorization,
      });
      if (standIn.mode === 'hang') return new Promise(() => undefined);
      if (standIn.mode === 'error') return reply.status(503).send({ message: 'unavailable' });
      if (standIn.mode === 'garbage') return reply.send({ unexpected: true });
      return { role: request.body.role };
    },
  );
  server.get(path, async (request, reply) => {
    standIn.seen.push({
      authorization: request.headers.authorization,
      requestId: request.headers['x-request-id'] as string | undefined,
    });
    if (standIn.mode === 'hang') return new Promise(() => undefined);
    if (standIn.mode === 'error') return reply.status(503).send({ message: 'unavailable' });
    if (standIn.mode === 'garbage') return reply.send({ unexpected: true });
    const sub = subjectOf(request.headers.authorization);
    return (sub && standIn.bodies.get(sub)) ?? standIn.fallback;
  });
  standIn.url = await server.listen({ port: 0, host: '127.0.0.1' });
  return standIn;
}

export interface AuthHarness {
  app: FastifyInstance;
  deps: Deps;
  keys: KeyPair;
  game: StandIn;
  payments: StandIn;
  events: EventCollector;
  /** The SMTP server auth sends its mail to. */
  mail: MailSink;
  close(): Promise<void>;
}

export const GAME_DEFAULT = { freeClicks: 10, purchasedClicks: 0, hasInfiniteClicks: false };
export const PAYMENTS_DEFAULT = { potEarned: 0, paypalEmail: null, adminBalance: null };

/** Resets Redis and JetStream, then starts auth on a fresh database. */
export async function startAuth(env: Record<string, string> = {}): Promise<AuthHarness> {
  await resetRedis();
  await resetNats();
  const keys = generateTokenKeys();
  const database = await freshDatabase();
  const game = await startStandIn('/api/game/profile', GAME_DEFAULT);
  const payments = await startStandIn('/api/payments/profile', PAYMENTS_DEFAULT);
  const mail = await startMailSink();
  const config = loadConfig({
    ...serviceEnv({ databaseUrl: database.url, publicKey: keys.publicKey, service: 'auth' }),
    // As an operator writes it in a one-line variable.
    JWT_PRIVATE_KEY: keys.privateKey.replace(/\n/g, '\\n'),
    GAME_URL: game.url,
    GAME_INTERNAL_URL: game.url,
    PAYMENTS_URL: payments.url,
    UPSTREAM_TIMEOUT_MS: '400',
    BOOTSTRAP_ADMIN_USERNAME: ADMIN.username,
    BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
    BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
    REGISTER_MAX_PER_IP: '0',
    SMTP_URL: mail.url,
    MAIL_RETRY_BASE_MS: '50',
    MAIL_RETRY_MAX_MS: '400',
    SMTP_TIMEOUT_MS: '2000',
    ...env,
  });
  const deps = await createDeps(config);
  const events = await collectEvents(config.NATS_URL);
  const app = await buildApp(deps, { logger: false });
  const started = await start(app, { outboxIntervalMs: 50, mailIntervalMs: 50 });
  return {
    app,
    deps,
    keys,
    game,
    payments,
    events,
    mail,
    async close() {
      await app.close();
      await started.stop();
      await mail.close();
      await deps.close();
      await events.close();
      await game.close();
      await payments.close();
      await database.drop();
    },
  };
}

/** Every auth event published, read by a JetStream consumer and checked against its contract. */
export interface EventCollector {
  received: EventEnvelope[];
  of<S extends Subject>(subject: S): EventEnvelope<S>[];
  close(): Promise<void>;
}

export async function collectEvents(natsUrl: string): Promise<EventCollector> {
  const nc: NatsConnection = await connect({ servers: natsUrl });
  const jsm = await nc.jetstreamManager();
  // The stream the service ensures at start; created here first so no event can be missed.
  await jsm.streams
    .add({ name: STREAMS.auth.name, subjects: [...STREAMS.auth.subjects] })
    .catch(() => undefined);
  const received: EventEnvelope[] = [];
  const consumer = await nc.jetstream().consumers.get(STREAMS.auth.name);
  const messages: ConsumerMessages = await consumer.consume();
  void (async () => {
    for await (const msg of messages) received.push(parseEvent(msg.subject as Subject, msg.data));
  })();
  return {
    received,
    of: <S extends Subject>(subject: S) =>
      received.filter((e) => e.subject === subject) as EventEnvelope<S>[],
    async close() {
      messages.stop();
      await nc.close();
    },
  };
}

let ipCounter = 0;
/** A distinct client address per call, so one test's failures do not count against another's. */
export function freshIp(): string {
  ipCounter += 1;
  return `198.51.${Math.floor(ipCounter / 250)}.${(ipCounter % 250) + 1}`;
}

let userCounter = 0;
export function newUser(prefix = 'player') {
  userCounter += 1;
  const username = `${prefix}_${userCounter}_${Math.random().toString(36).slice(2, 6)}`;
  return { username, email: `${username}@example.com`, password: `secret-${username}` };
}

export function bearer(token: string) {
  return { authorization: `Bearer ${token}` };
}

/** The headers of payments' internal call to auth: its service credential, and the player's token if given. */
export function fromPayments(token?: string) {
  return { ...internalCallHeaders('payments', 'auth'), ...(token === undefined ? {} : bearer(token)) };
}

/** The refresh cookie's value from a Set-Cookie answer, or undefined. */
export function refreshCookieOf(response: LightMyRequestResponse): string | undefined {
  return response.cookies.find((c) => c.name === 'omc_refresh')?.value || undefined;
}

export async function register(app: FastifyInstance, user = newUser(), ip = freshIp()) {
  const response = await app.inject({
    method: 'POST',
    url: '/api/user/register',
    payload: user,
    headers: { 'x-forwarded-for': ip },
  });
  if (response.statusCode !== 201)
    throw new Error(`register failed: ${response.statusCode} ${response.body}`);
  const body = response.json() as { token: string; message: string };
  return {
    ...user,
    token: body.token,
    refresh: refreshCookieOf(response)!,
    id: subjectOf(`Bearer ${body.token}`)!,
    response,
  };
}

export async function login(app: FastifyInstance, emailOrUsername: string, password: string, ip = freshIp()) {
  return app.inject({
    method: 'POST',
    url: '/api/user/login',
    payload: { emailOrUsername, password },
    headers: { 'x-forwarded-for': ip },
  });
}

export async function loginToken(
  app: FastifyInstance,
  emailOrUsername: string,
  password: string,
): Promise<string> {
  const response = await login(app, emailOrUsername, password);
  if (response.statusCode !== 200) throw new Error(`login failed: ${response.statusCode} ${response.body}`);
  return response.json().token;
}

/** The bootstrap admin's account id. */
export async function bootstrapAdminId(h: AuthHarness): Promise<string> {
  const row = await h.deps.db
    .selectFrom('users')
    .select('id')
    .where('email', '=', ADMIN.email)
    .executeTakeFirstOrThrow();
  return row.id;
}

/**
 * A second admin, made in the database as an operator would: two-admin acts need one that is not the
 * bootstrap admin. Signed in, so within the reauthentication window.
 */
export async function secondAdmin(h: AuthHarness, prefix = 'second_admin') {
  const user = await register(h.app, newUser(prefix));
  await h.deps.db.updateTable('users').set({ role: 'admin' }).where('id', '=', user.id).execute();
  return { ...user, token: await loginToken(h.app, user.username, user.password) };
}

/** Grants a role the way the admin routes allow: one admin asks, the other approves when it needs two. */
export async function grantRole(
  h: AuthHarness,
  admins: { requester: string; approver: string },
  email: string,
  role: 'standard' | 'superuser' | 'admin',
) {
  const asked = await h.app.inject({
    method: 'POST',
    url: '/api/admin/updateRole',
    headers: bearer(admins.requester),
    payload: { email, role },
  });
  if (asked.statusCode !== 202 || !asked.json().approval) return asked;
  return h.app.inject({
    method: 'POST',
    url: `/api/admin/approvals/${asked.json().approval.id}/approve`,
    headers: bearer(admins.approver),
    payload: {},
  });
}
