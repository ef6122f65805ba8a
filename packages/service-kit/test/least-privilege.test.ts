// Least privilege inside the cluster, from a process holding one service's credentials: a Redis and a
// NATS started with the users the deployments load (packages/contracts' REDIS_USERS and BUS_USERS, as
// packages/infra generates them). Each Redis user runs its own commands on its own keys and nothing else
// (no other service's key, no FLUSHALL, CONFIG, KEYS...); the bus users that watch another service's
// stream (game and realtime on AUTH_EVENTS, realtime on GAME_EVENTS) may create only consumers filtered to
// the watched subject, and may neither take over, read, nor delete another service's durable consumer.
import { join } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import {
  BUS_USERS,
  REDIS_USER_NAMES,
  REDIS_USERS,
  STREAMS,
  SUBJECTS,
  type BusUserName,
  type RedisUserName,
} from '@omc/contracts';
import {
  natsAuthorization,
  natsUrlWithUser,
  randomNatsPasswords,
  startNats,
  startRedis,
  type RedisHandle,
  type ServerHandle,
} from '@omc/infra';
import { Redis } from 'ioredis';
import { AckPolicy, DeliverPolicy } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectNats, ensureStream, type Nats } from '../src/nats.js';

const dir = mkdtempSync(join(tmpdir(), 'omc-least-privilege-'));
let redis: RedisHandle;
let nats: ServerHandle;
let admin: Nats;
const natsPasswords = randomNatsPasswords();
const clients: Redis[] = [];

beforeAll(async () => {
  [redis, nats] = await Promise.all([
    startRedis(join(dir, 'redis')),
    startNats(join(dir, 'nats'), {
      config: natsAuthorization({ passwords: natsPasswords, openLoopback: true }),
    }),
  ]);
  // As the owners would: the streams and every durable consumer the table names.
  admin = await connectNats(nats.url, 'least-privilege-admin');
  for (const stream of [STREAMS.auth, STREAMS.payments, STREAMS.game]) await ensureStream(admin.jsm, stream);
  for (const user of Object.values(BUS_USERS))
    for (const [stream, durable] of user.consumers)
      await admin.jsm.consumers.add(stream, { durable_name: durable, ack_policy: AckPolicy.Explicit });
}, 60_000);

afterAll(async () => {
  for (const client of clients) client.disconnect();
  await admin?.close();
  await Promise.allSettled([redis?.stop(), nats?.stop()]);
  rmSync(dir, { recursive: true, force: true });
});

const as = (user: RedisUserName) => {
  const client = new Redis(redis.urlFor(user), { maxRetriesPerRequest: 1, lazyConnect: false });
  clients.push(client);
  return client;
};

/** The error text of a refused call, or 'allowed'. */
const outcome = (call: Promise<unknown>) =>
  call.then(
    () => 'allowed',
    (error: Error) => error.message,
  );

/** A key each user owns (its first pattern, the glob's star made a name). */
const ownKey = (user: RedisUserName) => REDIS_USERS[user].keys[0]!.replace('*', 'least-privilege');

describe('Redis users', () => {
  it("refuses every service's user the administrative commands", async () => {
    const forbidden: string[][] = [
      ['FLUSHALL'],
      ['FLUSHDB'],
      ['CONFIG', 'GET', '*'],
      ['CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru'],
      ['KEYS', '*'],
      ['SCAN', '0'],
      ['DEBUG', 'SLEEP', '0'],
      ['SHUTDOWN', 'NOSAVE'],
      ['ACL', 'LIST'],
      ['ACL', 'SETUSER', 'intruder', 'on', 'nopass', '+@all', '~*'],
      ['MONITOR'],
      ['SCRIPT', 'FLUSH'],
      ['FUNCTION', 'FLUSH'],
      ['REPLICAOF', '127.0.0.1', '1'],
      ['CLIENT', 'KILL', 'TYPE', 'normal'],
      ['MIGRATE', '127.0.0.1', '1', '', '0', '1', 'KEYS', 'x'],
    ];
    const harness = new Redis(redis.url);
    clients.push(harness);
    for (const user of REDIS_USER_NAMES) {
      const client = as(user);
      for (const [command, ...args] of forbidden) {
        const what = `${user} ${command} ${args.join(' ')}`;
        // What the user's permissions say (DEBUG is also off server-wide, which would answer first)...
        expect(await harness.call('ACL', 'DRYRUN', user, command!, ...args), what).toMatch(/no permissions/i);
        // ...and what the server answers the user.
        if (command !== 'DEBUG')
          expect(await outcome(client.call(command!, ...args)), what).toMatch(/^NOPERM/);
      }
    }
  });

  it("refuses each service every other service's keys, and runs its own", async () => {
    for (const user of REDIS_USER_NAMES) {
      const client = as(user);
      // A script naming a key: Redis checks the declared keys against the user's patterns.
      expect(await outcome(client.eval('return 1', 1, ownKey(user))), `${user} on its own key`).toBe(
        'allowed',
      );
      for (const other of REDIS_USER_NAMES.filter((o) => o !== user)) {
        expect(await outcome(client.eval('return 1', 1, ownKey(other))), `${user} on ${other}'s key`).toMatch(
          /^NOPERM/,
        );
      }
    }
  });

  it("keeps realtime off the game's hash: no HSET making anyone an admin, no SET over it", async () => {
    const realtime = as('realtime');
    expect(await outcome(realtime.hset('{omc:game}:game', 'some-user', '{"role":"superuser"}'))).toMatch(
      /^NOPERM/,
    );
    expect(await outcome(realtime.set('{omc:game}:game', 'x'))).toMatch(/^NOPERM/);
    expect(await outcome(realtime.del('{omc:game}:game'))).toMatch(/^NOPERM/);
    // Inside a script too: each redis.call is checked.
    expect(
      await outcome(realtime.eval("return redis.call('DEL', '{omc:game}:game')", 1, 'omc:realtime:x')),
    ).toMatch(/NOPERM|can't access/i);
    // Its own work is allowed: its keys, its channels.
    expect(await outcome(realtime.set('omc:realtime:sockets:test', '1', 'PX', 1000))).toBe('allowed');
    expect(await outcome(realtime.publish('omc:realtime:count-changed', 'test'))).toBe('allowed');
    expect(await outcome(realtime.publish('another-channel', 'test'))).toMatch(/^NOPERM/);
  });

  it('keeps the game to its own hash with its own commands', async () => {
    const game = as('game');
    expect(await outcome(game.hset('{omc:game}:game', 'round', '1'))).toBe('allowed');
    expect(await outcome(game.set('{auth:guard}:lock:acct:admin', '1'))).toMatch(/^NOPERM/);
    expect(await outcome(game.del('omc:gateway:rate:1.2.3.4'))).toMatch(/^NOPERM/);
  });

  it('refuses a wrong password', async () => {
    const wrong = new Redis(redis.urlFor('game').replace(/:[^:@]+@/, ':wrong@'), {
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    const error = await new Promise<Error>((resolve) => wrong.once('error', resolve));
    expect(error.message).toMatch(/WRONGPASS/);
    wrong.disconnect();
  });
});

const refused = (error: unknown) =>
  (error as { code?: string }).code === 'PERMISSIONS_VIOLATION' ||
  /Permissions Violation/i.test(String((error as Error).message));

/** 'refused', 'allowed' or the failure's message. */
const busOutcome = (call: Promise<unknown>) =>
  call.then(
    () => 'allowed',
    (error) => (refused(error) ? 'refused' : `failed: ${(error as Error).message}`),
  );

async function connectAs(user: BusUserName): Promise<Nats> {
  return connectNats(natsUrlWithUser(nats.url, user, natsPasswords[user]), `least-privilege-${user}`);
}

describe('NATS users that watch another service’s stream', () => {
  const watchers = (Object.keys(BUS_USERS) as BusUserName[]).filter(
    (u) => (BUS_USERS[u].watches ?? []).length,
  );

  it('are game and realtime', () => expect(watchers.sort()).toEqual(['game', 'realtime']));

  it('create no unfiltered consumer, nor one filtered to another subject, on AUTH_EVENTS', async () => {
    for (const user of watchers) {
      const bus = await connectAs(user);
      try {
        // No name: the API subject carries no filter ($JS.API.CONSUMER.CREATE.AUTH_EVENTS).
        const unfiltered = await busOutcome(
          bus.jsm.consumers.add(STREAMS.auth.name, {
            ack_policy: AckPolicy.None,
            deliver_policy: DeliverPolicy.New,
          }),
        );
        expect(unfiltered, `${user}: an unfiltered consumer`).toBe('refused');
        const emails = await busOutcome(
          bus.jsm.consumers.add(STREAMS.auth.name, {
            name: `snoop-${user}`,
            filter_subject: SUBJECTS.userEmailChanged,
            ack_policy: AckPolicy.None,
          }),
        );
        expect(emails, `${user}: a consumer of email changes`).toBe('refused');
        // The watched subject is allowed.
        const watched = await busOutcome(
          bus.jsm.consumers.add(STREAMS.auth.name, {
            name: `watch-${user}`,
            filter_subject: SUBJECTS.sessionEnded,
            ack_policy: AckPolicy.None,
            inactive_threshold: 60_000_000_000,
          }),
        );
        expect(watched, `${user}: a consumer of ended sessions`).toBe('allowed');
      } finally {
        await bus.close();
      }
    }
  });

  it("neither take over, read, nor delete another service's durable consumer", async () => {
    for (const user of watchers) {
      const bus = await connectAs(user);
      try {
        const streams = [...new Set((BUS_USERS[user].watches ?? []).map(([stream]) => stream))];
        for (const stream of streams) {
          const others = Object.entries(BUS_USERS)
            .filter(([name]) => name !== user)
            .flatMap(([, u]) => u.consumers.filter(([s]) => s === stream).map(([, durable]) => durable));
          expect(others.length).toBeGreaterThan(0);
          for (const durable of others) {
            const what = `${user} on ${stream}/${durable}`;
            // A create under its name, filtered to the watched subject, would update it (its filter).
            const watchedSubject = BUS_USERS[user].watches!.find(([s]) => s === stream)![1];
            expect(
              await busOutcome(
                bus.jsm.consumers.add(stream, {
                  name: durable,
                  durable_name: durable,
                  filter_subject: watchedSubject,
                  ack_policy: AckPolicy.Explicit,
                }),
              ),
              `${what}: take over`,
            ).toBe('refused');
            expect(await busOutcome(bus.jsm.consumers.delete(stream, durable)), `${what}: delete`).toBe(
              'refused',
            );
            expect(await busOutcome(bus.jsm.consumers.info(stream, durable)), `${what}: info`).toBe(
              'refused',
            );
            expect(
              await busOutcome(
                bus.nc.request(
                  `$JS.API.CONSUMER.MSG.NEXT.${stream}.${durable}`,
                  '{"batch":1,"no_wait":true}',
                  {
                    timeout: 3000,
                  },
                ),
              ),
              `${what}: read its messages`,
            ).toBe('refused');
          }
        }
      } finally {
        await bus.close();
      }
    }
    // Every durable consumer is still there.
    for (const user of Object.values(BUS_USERS))
      for (const [stream, durable] of user.consumers)
        expect((await admin.jsm.consumers.info(stream, durable)).config.durable_name).toBe(durable);
  });
});
