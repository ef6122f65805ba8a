// A game service (or several) on real Postgres, Redis and NATS, with users brought into existence the
// way auth does it: by events on JetStream.
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import {
  makeEvent,
  parseEvent,
  STREAMS,
  SUBJECTS,
  type EventEnvelope,
  type PackId,
  type Role,
} from '@omc/contracts';
import { AckPolicy, DeliverPolicy } from 'nats';
import { rmSync } from 'node:fs';
import { startRedis } from '@omc/infra';
import { connectNats, ensureStream, publishEvent, type Nats } from '@omc/service-kit';
import {
  eventually,
  freshDatabase,
  generateTokenKeys,
  resetNats,
  signAccessToken,
  serviceEnv,
  testInfra,
  workspaceRoot,
} from '@omc/testkit';
import { buildApp, start, type GameApp, type GameStarted } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';

export interface TestUser {
  id: string;
  username: string;
  role: Role;
  token: string;
}

export type Harness = Awaited<ReturnType<typeof startGame>>;

export async function startGame(options: { env?: Record<string, string>; instances?: number; name: string }) {
  await resetNats();
  const keys = generateTokenKeys();
  const database = await freshDatabase();
  const redisDir = join(workspaceRoot(), '.data', 'test', `game-${options.name}-redis-${process.pid}`);
  let redis = await startRedis(redisDir);
  const redisPort = Number(new URL(redis.url).port);
  const nats: Nats = await connectNats(testInfra().natsUrl, 'game-test');
  for (const stream of [STREAMS.auth, STREAMS.payments, STREAMS.game]) await ensureStream(nats.jsm, stream);

  const stopEarly = async (error: unknown): Promise<never> => {
    await nats.close();
    await redis.stop();
    rmSync(redisDir, { recursive: true, force: true });
    await database.drop();
    throw error;
  };
  const config = await Promise.resolve()
    .then(() =>
      loadConfig({
        ...serviceEnv({ databaseUrl: database.url, publicKey: keys.publicKey, service: 'game' }),
        // A Redis of this file's own, so a test may stop it; the game as its own Redis user.
        REDIS_URL: redis.urlFor('game'),
        // Every test client clicks from this one host; the address budget has its own tests.
        CLICK_RATE_PER_IP: '0',
        // Concurrency tests send thousands of clicks at once; click admission has its own tests.
        CLICK_QUEUE_IN_FLIGHT: '0',
        // Auth's calls answer on a listener of their own; any free port.
        INTERNAL_PORT: '0',
        // The closing click says `won` once its win is in Postgres, if that takes under this bound; on a
        // loaded machine the write may outlast the 1 s default, and the tests that count winners by the
        // click's answer would see none. postgres-stall.test.ts tests the bound itself.
        WIN_CONFIRM_TIMEOUT_MS: '30000',
        ...options.env,
      }),
    )
    .catch(stopEarly);
  const depsList: Deps[] = [];
  const apps: GameApp[] = [];
  const started = new Map<GameApp, GameStarted>();
  for (let i = 0; i < (options.instances ?? 1); i++) {
    const deps = await createDeps(config);
    depsList.push(deps);
    const app = await buildApp(deps, { logger: false });
    started.set(app, await start(app));
    apps.push(app);
  }
  const app = apps[0]!;

  const publish = async <S extends Parameters<typeof publishEvent>[1]['subject']>(
    event: EventEnvelope<S>,
    msgId = event.id,
  ) => {
    await nats.js.publish(event.subject, JSON.stringify(event), { msgID: msgId });
  };

  const profile = async (user: TestUser, on: GameApp = app) =>
    on.inject({
      method: 'GET',
      url: '/api/game/profile',
      headers: { authorization: `Bearer ${user.token}` },
    });

  const harness = {
    config,
    apps,
    app,
    nats,
    keys,
    publish,
    profile,
    /** Writes everything Redis holds for Postgres now, by the instance `on`. */
    flushJournal: (on: GameApp = app) => started.get(on)!.flushJournal(),
    /** Publishes every event in the outbox now, by the instance `on`. */
    drainOutbox: (on: GameApp = app) => started.get(on)!.drainOutbox(),

    async token(user: { id: string; username: string; role: Role }) {
      return signAccessToken(keys.privateKey, { sub: user.id, username: user.username, role: user.role });
    },

    /** Registers users as auth would, and waits until the game knows them. */
    async registerUsers(count: number, role: Role = 'standard', prefix = 'player'): Promise<TestUser[]> {
      const users: TestUser[] = [];
      for (let i = 0; i < count; i++) {
        const id = randomUUID();
        const username = `${prefix}_${id.slice(0, 8)}`;
        users.push({
          id,
          username,
          role,
          token: await signAccessToken(keys.privateKey, { sub: id, username, role }),
        });
      }
      // A hundred at a time, side by side (each awaits JetStream's ack); then each is waited for in turn.
      for (let from = 0; from < users.length; from += 100) {
        const batch = users.slice(from, from + 100);
        await Promise.all(
          batch.map((user) =>
            publishEvent(
              nats.js,
              makeEvent(SUBJECTS.userRegistered, {
                userId: user.id,
                username: user.username,
                email: `${user.username}@example.test`,
                role,
                preferredLanguage: 'en',
              }),
            ),
          ),
        );
      }
      for (const user of users)
        await eventually(async () => (await profile(user)).statusCode === 200, `game knows ${user.username}`);
      return users;
    },

    async registerUser(role: Role = 'standard', prefix = 'player'): Promise<TestUser> {
      return (await harness.registerUsers(1, role, prefix))[0]!;
    },

    click(user: TestUser, on: GameApp = app) {
      return on.inject({
        method: 'POST',
        url: '/api/game/click',
        headers: { authorization: `Bearer ${user.token}` },
      });
    },

    /**
     * A click sent until it is answered for good: a 503 (a batch Redis ran past its deadline on a loaded
     * machine, docs/game.md) counted nothing and is sent again.
     */
    async clickCounted(user: TestUser, on: GameApp = app) {
      for (;;) {
        const response = await harness.click(user, on);
        if (response.statusCode !== 503) return response;
        await new Promise((r) => setTimeout(r, 100));
      }
    },

    async state(user?: TestUser, on: GameApp = app) {
      const response = await on.inject({
        method: 'GET',
        url: '/api/game/state',
        headers: user ? { authorization: `Bearer ${user.token}` } : {},
      });
      return response.json().gameState as {
        globalClicks: number;
        pot?: number;
        lastWinner?: string | null;
        lastClickUser?: string | null;
      };
    },

    async balance(user: TestUser, on: GameApp = app) {
      const response = await profile(user, on);
      if (response.statusCode !== 200) throw new Error(`profile ${response.statusCode}: ${response.body}`);
      return response.json() as { freeClicks: number; purchasedClicks: number; hasInfiniteClicks: boolean };
    },

    /** Clicks `count` times with a privileged user, `parallel` at a time. */
    async clickTimes(user: TestUser, count: number, parallel = 50, on: GameApp = app) {
      const responses = [];
      for (let done = 0; done < count; done += parallel) {
        const n = Math.min(parallel, count - done);
        responses.push(...(await Promise.all(Array.from({ length: n }, () => harness.click(user, on)))));
      }
      return responses;
    },

    purchaseEvent(user: TestUser, packId: PackId, potShareCents: number) {
      const clicks = packId === 'unlimited' ? null : Number(packId.replace('clicks', ''));
      return makeEvent(SUBJECTS.purchaseCompleted, {
        purchaseId: randomUUID(),
        userId: user.id,
        packId,
        clicks,
        unlimited: clicks === null,
        amountCents: potShareCents * 2,
        potShareCents,
        houseShareCents: potShareCents,
        transactionId: `tx_${randomUUID().slice(0, 8)}`,
      });
    },

    async changeRole(user: TestUser, role: Role) {
      await publishEvent(
        nats.js,
        makeEvent(SUBJECTS.userRoleChanged, { userId: user.id, role, previousRole: user.role }),
      );
    },

    redisUrl: () => redis.url,
    /** The PID of the test's own redis-server (to pause it with SIGSTOP and resume it with SIGCONT). */
    redisPid: () => redis.pid,

    /** Stops Redis by its PID and starts an empty one on the same port (its data is not kept). */
    async restartRedisEmpty() {
      await redis.stop();
      redis = await startRedis(redisDir, { port: redisPort, passwords: redis.passwords });
    },

    /** Stops one instance as its process does on SIGTERM: the app closes, then what start() started. */
    async stopInstance(on: GameApp) {
      await on.close();
      await started.get(on)!.stop();
    },

    async close() {
      for (const a of apps) await harness.stopInstance(a);
      for (const d of depsList) await d.close();
      await nats.close();
      await redis.stop();
      rmSync(redisDir, { recursive: true, force: true });
      await database.drop();
    },
  };
  return harness;
}

/** A JetStream consumer of game.round.won.v1, as payments has. */
export async function roundWonInbox(h: Harness) {
  const durable = `test-round-won-${Date.now()}`;
  await h.nats.jsm.consumers.add(STREAMS.game.name, {
    durable_name: durable,
    ack_policy: AckPolicy.Explicit,
    deliver_policy: DeliverPolicy.All,
    filter_subject: SUBJECTS.roundWon,
  });
  const received: EventEnvelope<typeof SUBJECTS.roundWon>[] = [];
  const consumer = await h.nats.js.consumers.get(STREAMS.game.name, durable);
  const messages = await consumer.consume({ max_messages: 100 });
  void (async () => {
    for await (const msg of messages) {
      received.push(parseEvent(SUBJECTS.roundWon, msg.data));
      msg.ack();
    }
  })();
  return { received, stop: () => messages.stop() };
}
