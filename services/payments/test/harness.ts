// One payments service per test file: real Postgres (a fresh clone of the migrated template), real NATS
// and Redis, and the provider emulator in this process on a free port, reached by the real SDK.
import { startEmulator, type RunningEmulator } from '@omc/emulators';
import {
  INTERNAL_HOUSE_PAYOUT_PATH,
  INTERNAL_PAYOUT_EMAIL_MAIL_PATH,
  INTERNAL_WINS_PATH,
  InternalPayoutEmailMail,
  makeEvent,
  type InternalTakeBack,
  type InternalTakeBackRequest,
  STREAMS,
  type EventEnvelope,
  type EventPayload,
  type InternalWin,
  type Subject,
} from '@omc/contracts';
import { ensureStream, publishEvent } from '@omc/service-kit';
import {
  freshDatabase,
  generateTokenKeys,
  resetNats,
  serviceEnv,
  signAccessToken,
  testInfra,
  internalCallHeaders,
} from '@omc/testkit';
import Fastify from 'fastify';
import { connect, type NatsConnection, type Subscription } from 'nats';
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { buildApp, start, type PaymentsApp } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';
import { checkLedger } from '../src/ledger/check.js';

export interface Harness {
  app: PaymentsApp;
  deps: Deps;
  /** Publishes every event in the outbox now. */
  drainOutbox(): Promise<void>;
  databaseUrl: string;
  emulator: RunningEmulator;
  nc: NatsConnection;
  /** Every payments.* event published since the harness started. */
  published: EventEnvelope[];
  keys: { publicKey: string; privateKey: string };
  /** Auth as the money paths ask it: by default the token's own subject and role. */
  auth: AuthStandIn;
  /** The game's record of won rounds, as payments asks it before crediting a win. */
  game: GameStandIn;
  token(user: { sub: string; username?: string; role?: 'standard' | 'admin' | 'superuser' }): Promise<string>;
  /**
   * Sets the payout email as the owner does: asks for it, then opens the link auth was asked to mail to
   * the account's email; returns the confirm answer.
   */
  setPayoutEmail(
    token: string,
    paypalEmail: string,
  ): Promise<{ statusCode: number; json(): Record<string, unknown> }>;
  publish<S extends Subject>(subject: S, data: EventPayload<S>, id?: string): Promise<EventEnvelope<S>>;
  assertLedgerBalances(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A stand-in for auth's GET /internal/account, the source of truth the money paths ask: it answers the
 * token's subject with the token's role and a verified email unless a test says the account is deleted,
 * its role changed, its email is not verified, or auth is an older one that does not say.
 */
export interface AuthStandIn {
  url: string;
  deleted: Set<string>;
  roles: Map<string, string>;
  /** Accounts whose email is not verified. */
  unverified: Set<string>;
  /** Accounts for which auth answers without `emailVerified`. */
  silent: Set<string>;
  /** Accounts whose token's session auth says has ended (a reset, an ended session): 401 with that reason. */
  ended: Set<string>;
  down: boolean;
  calls: number;
  /** What payments asked auth's audit log to record, with the token it forwarded. */
  audited: { authorization: string | undefined; body: unknown }[];
  /** The payout email mails payments asked auth to send (the confirm link's token among them). */
  payoutMails: { userId: string; body: InternalPayoutEmailMail }[];
  /** Each account's security epoch (0 unless a test raised it: a security event). */
  epochs: Map<string, number>;
  /** Accounts whose password auth asks for (no recent sign-in), with the password it accepts. */
  passwords: Map<string, string>;
  /** Suspended accounts. */
  suspended: Set<string>;
  close(): Promise<void>;
}

/**
 * A stand-in for the game's GET /internal/wins (the wins a test recorded, and nothing else) and its
 * take-back of a refunded purchase: once per purchase, the figures a test set for it, or by default a
 * round in play with the pack's clicks and the pot share taken.
 */
export interface GameStandIn {
  url: string;
  wins: Map<number, InternalWin>;
  down: boolean;
  /** The take-back calls, with the token forwarded. */
  takeBackCalls: { purchaseId: string; authorization: string | undefined }[];
  /** What the game answers for a purchase's take-back (set before the refund), else the default. */
  takeBacks: Map<string, Omit<InternalTakeBack, 'purchaseId'>>;
  /** Take-backs answer 503 while set. */
  takeBackDown: boolean;
  /** Take-backs are made, then answered 503 (the answer lost), while set. */
  takeBackAnswerLost: boolean;
  /**
   * Asked, as the game asks payments, whether a take-back without an admin's token is of a refund whose
   * money went back (set by the harness once the app is built).
   */
  refundState: (purchaseId: string) => Promise<string | undefined>;
  close(): Promise<void>;
}

async function startGameStandIn(): Promise<GameStandIn> {
  const server = Fastify({ logger: false, forceCloseConnections: true });
  const standIn: GameStandIn = {
    url: '',
    wins: new Map(),
    down: false,
    takeBackCalls: [],
    takeBacks: new Map(),
    takeBackDown: false,
    takeBackAnswerLost: false,
    refundState: async () => undefined,
    close: () => server.close(),
  };
  server.post<{ Params: { id: string }; Body: InternalTakeBackRequest }>(
    '/internal/purchases/:id/take-back',
    async (request, reply) => {
      const purchase = request.body;
      standIn.takeBackCalls.push({
        purchaseId: request.params.id,
        authorization: request.headers.authorization,
      });
      if (standIn.takeBackDown) return reply.status(503).send({ message: 'unavailable' });
      if (request.headers.authorization === undefined) {
        const state = await standIn.refundState(request.params.id);
        if (state !== 'returned' && state !== 'completed')
          return reply.status(403).send({ message: `refund ${state ?? 'unknown'}` });
      }
      const figures = standIn.takeBacks.get(request.params.id) ?? {
        round: 1,
        roundInPlay: true,
        clicks: purchase.clicks ?? 0,
        pass: purchase.unlimited,
        potCents: purchase.potShareCents,
      };
      standIn.takeBacks.set(request.params.id, figures);
      if (standIn.takeBackAnswerLost) return reply.status(503).send({ message: 'answer lost' });
      return { purchaseId: request.params.id, ...figures };
    },
  );
  server.get<{ Params: { round: string } }>(`${INTERNAL_WINS_PATH}/:round`, async (request, reply) => {
    if (standIn.down) return reply.status(503).send({ message: 'unavailable' });
    const win = standIn.wins.get(Number(request.params.round));
    return win ?? reply.status(404).send({ message: 'no such win' });
  });
  server.get<{ Querystring: { since: string; afterRound?: string; limit?: string } }>(
    INTERNAL_WINS_PATH,
    async (request, reply) => {
      if (standIn.down) return reply.status(503).send({ message: 'unavailable' });
      const since = new Date(request.query.since).getTime();
      const after = Number(request.query.afterRound ?? 0);
      const wins = [...standIn.wins.values()]
        .filter((w) => w.round > after && new Date(w.wonAt).getTime() >= since)
        .sort((a, b) => a.round - b.round)
        .slice(0, Number(request.query.limit ?? 200));
      return { wins };
    },
  );
  standIn.url = await server.listen({ port: 0, host: '127.0.0.1' });
  return standIn;
}

async function startAuthStandIn(): Promise<AuthStandIn> {
  const server = Fastify({ logger: false, forceCloseConnections: true });
  const standIn: AuthStandIn = {
    url: '',
    deleted: new Set(),
    roles: new Map(),
    unverified: new Set(),
    silent: new Set(),
    ended: new Set(),
    down: false,
    calls: 0,
    audited: [],
    payoutMails: [],
    epochs: new Map(),
    passwords: new Map(),
    suspended: new Set(),
    close: () => server.close(),
  };
  const claimsOf = (authorization: string | undefined) => {
    const payload = authorization?.split(' ')[1]?.split('.')[1];
    return payload
      ? (JSON.parse(Buffer.from(payload, 'base64url').toString()) as { sub: string; role: string })
      : undefined;
  };
  server.post(INTERNAL_PAYOUT_EMAIL_MAIL_PATH, async (request, reply) => {
    if (standIn.down) return reply.status(503).send({ message: 'unavailable' });
    const claims = claimsOf(request.headers.authorization);
    if (!claims || standIn.deleted.has(claims.sub))
      return reply.status(401).send({ message: 'This account no longer exists' });
    const body = InternalPayoutEmailMail.parse(request.body);
    const password = standIn.passwords.get(claims.sub);
    if (password !== undefined && body.currentPassword !== password)
      return reply.status(400).send({
        code: 'BAD_REQUEST',
        field: 'currentPassword',
        message:
          body.currentPassword === undefined
            ? 'currentPassword is required: enter your current password (or sign in again) to make this change'
            : 'Current password is incorrect',
      });
    standIn.payoutMails.push({ userId: claims.sub, body });
    return { message: 'Mailed' };
  });
  server.get<{ Params: { userId: string } }>(
    '/internal/accounts/:userId/security',
    async (request, reply) => {
      if (standIn.down) return reply.status(503).send({ message: 'unavailable' });
      const { userId } = request.params;
      if (standIn.deleted.has(userId)) return reply.status(404).send({ message: 'No such account' });
      return {
        userId,
        securityEpoch: standIn.epochs.get(userId) ?? 0,
        suspended: standIn.suspended.has(userId),
      };
    },
  );
  server.post('/internal/audit', async (request) => {
    standIn.audited.push({ authorization: request.headers.authorization, body: request.body });
    return { message: 'Recorded' };
  });
  server.get('/internal/account', async (request, reply) => {
    standIn.calls += 1;
    if (standIn.down) return reply.status(503).send({ message: 'unavailable' });
    const payload = request.headers.authorization?.split(' ')[1]?.split('.')[1];
    const claims = payload ? JSON.parse(Buffer.from(payload, 'base64url').toString()) : undefined;
    if (!claims || standIn.deleted.has(claims.sub))
      return reply.status(401).send({ message: 'This account no longer exists' });
    if (standIn.ended.has(claims.sub))
      return reply.status(401).send({ message: 'This session has ended; please sign in again' });
    const account = {
      userId: claims.sub,
      role: standIn.roles.get(claims.sub) ?? claims.role,
      securityEpoch: standIn.epochs.get(claims.sub) ?? 0,
    };
    if (standIn.silent.has(claims.sub)) return account;
    return { ...account, emailVerified: !standIn.unverified.has(claims.sub) };
  });
  standIn.url = await server.listen({ port: 0, host: '127.0.0.1' });
  return standIn;
}

export async function startHarness(
  env: NodeJS.ProcessEnv = {},
  options: { beforeStart?: (game: GameStandIn) => void } = {},
): Promise<Harness> {
  await resetNats();
  const auth = await startAuthStandIn();
  const game = await startGameStandIn();
  const database = await freshDatabase();
  const emulator = await startEmulator();
  const keys = generateTokenKeys();
  const infra = testInfra();
  const config = loadConfig({
    ...serviceEnv({ databaseUrl: database.url, publicKey: keys.publicKey, service: 'payments' }),
    BRAINTREE_EMULATOR_URL: emulator.url,
    BRAINTREE_TIMEOUT_MS: '800',
    PAYPAL_TIMEOUT_MS: '800',
    PAYPAL_RETRY_BASE_MS: '10',
    RECONCILE_INTERVAL_MS: '0',
    AUTH_URL: auth.url,
    GAME_URL: game.url,
    GAME_INTERNAL_URL: game.url,
    EVENT_RECONCILE_INTERVAL_MS: '0',
    ...env,
  });
  const deps = await createDeps(config);
  const app = await buildApp(deps, { logger: false });
  game.refundState = async (purchaseId) => {
    const answer = await app.inject({
      method: 'GET',
      url: `/internal/refunds/${purchaseId}`,
      headers: internalCallHeaders('game', 'payments'),
    });
    return answer.statusCode === 200 ? (answer.json() as { status: string }).status : undefined;
  };
  options.beforeStart?.(game);
  const started = await start(app);
  const nc = await connect({ servers: infra.natsUrl });
  const published: EventEnvelope[] = [];
  const subscription: Subscription = nc.subscribe('payments.>', {
    callback: (_error, msg) =>
      published.push(JSON.parse(new TextDecoder().decode(msg.data)) as EventEnvelope),
  });
  const js = nc.jetstream();
  const jsm = await nc.jetstreamManager();
  await ensureStream(jsm, STREAMS.auth);
  await ensureStream(jsm, STREAMS.game);

  return {
    app,
    deps,
    drainOutbox: () => started.drainOutbox(),
    databaseUrl: database.url,
    emulator,
    nc,
    published,
    keys,
    auth,
    game,
    token: (user) =>
      signAccessToken(keys.privateKey, {
        sub: user.sub,
        username: user.username ?? `user_${user.sub.slice(0, 6)}`,
        role: user.role ?? 'standard',
      }),
    async setPayoutEmail(token, paypalEmail) {
      const asked = await app.inject({
        method: 'POST',
        url: '/api/winners/setPaymentMethod',
        headers: { authorization: `Bearer ${token}` },
        payload: { paypalEmail },
      });
      if (asked.statusCode !== 200) return asked;
      const mailed = auth.payoutMails.at(-1)!;
      return app.inject({
        method: 'POST',
        url: '/api/winners/confirm-payout-email',
        payload: { token: await mintPayoutToken(app, mailed.body.requestId) },
      });
    },
    async publish(subject, data, id = randomUUID()) {
      const event = makeEvent(subject, data, id);
      await publishEvent(js, event);
      return event;
    },
    async assertLedgerBalances() {
      const report = await checkLedger(deps.db);
      expect(report.problems).toEqual([]);
      expect(report.ok).toBe(true);
    },
    async close() {
      subscription.unsubscribe();
      await nc.close();
      await app.close();
      await started.stop();
      await deps.close();
      await emulator.stop();
      await auth.close();
      await game.close();
      await database.drop();
    },
  };
}

export const newUserId = () => randomUUID();

/** What auth's mailer does as the confirm mail leaves: asks payments for the link's token. */
export async function mintPayoutToken(
  app: { inject: PaymentsApp['inject'] },
  requestId: string,
): Promise<string> {
  const minted = await app.inject({
    method: 'POST',
    url: `/internal/payout-email/${requestId}/token`,
    headers: internalCallHeaders('auth', 'payments'),
  });
  if (minted.statusCode !== 200)
    throw new Error(`no token for ${requestId}: ${minted.statusCode} ${minted.body}`);
  return minted.json().token as string;
}

/**
 * Auth's call once two admins agreed on a house payout: the requesting admin's account as auth states it
 * (an admin with a verified email unless `account` says otherwise).
 */
export function payHouse(
  app: { inject: PaymentsApp['inject'] },
  userId: string,
  account: { role?: string; emailVerified?: boolean; securityEpoch?: number } = {},
  headers: Record<string, string> = internalCallHeaders('auth', 'payments'),
) {
  return app.inject({
    method: 'POST',
    url: INTERNAL_HOUSE_PAYOUT_PATH,
    headers,
    payload: {
      approvalId: randomUUID(),
      userId,
      role: account.role ?? 'admin',
      emailVerified: account.emailVerified ?? true,
      securityEpoch: account.securityEpoch ?? 0,
    },
  });
}
