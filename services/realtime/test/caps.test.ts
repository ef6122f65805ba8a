// What one address can do to a realtime instance: hold at most WS_MAX_PER_IP sockets (a clear refusal
// beyond), count as one person however many sockets it opens, and be told apart from others behind the
// gateway only through a trusted proxy's X-Forwarded-For. Also: the count is sent again at a steady pace.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { SOCKET_CLIENT_OPTIONS, type ServerToClientEvents } from '@omc/contracts';
import { startNats, startRedis, type RedisHandle, type ServerHandle } from '@omc/infra';
import { AddressLeases } from '@omc/service-kit';
import { eventually, generateTokenKeys, signAccessToken, workspaceRoot } from '@omc/testkit';
import { io as connectSocket, type Socket } from 'socket.io-client';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  record,
  startFakeGame,
  startInstance,
  type FakeGame,
  type Instance,
  type Recorder,
} from './support.js';

const dataDir = join(workspaceRoot(), '.data', 'test', `realtime-caps-${process.pid}`);

describe('connection caps and the head count', () => {
  const keys = generateTokenKeys();
  let redis: RedisHandle;
  let nats: ServerHandle;
  let game: FakeGame;
  let capped: Instance;
  let untrusting: Instance;
  const recorders: Recorder[] = [];
  const sockets: Socket[] = [];
  const open = (url: string, options: Parameters<typeof record>[1] = {}) => {
    const r = record(url, { reconnection: false, ...options });
    recorders.push(r);
    return r;
  };
  /** A socket as if the gateway forwarded it for `address`. */
  const openFrom = (url: string, address: string) => {
    const socket: Socket<ServerToClientEvents> = connectSocket(url, {
      ...SOCKET_CLIENT_OPTIONS,
      reconnection: false,
      forceNew: true,
      extraHeaders: { 'x-forwarded-for': address },
    });
    sockets.push(socket);
    return socket;
  };

  beforeAll(async () => {
    [redis, nats] = await Promise.all([startRedis(join(dataDir, 'redis')), startNats(join(dataDir, 'nats'))]);
    game = await startFakeGame(nats.url);
    const env = { REDIS_URL: redis.urlFor('realtime'), NATS_URL: nats.url, JWT_PUBLIC_KEY: keys.publicKey };
    // Two instances on separate Redis key spaces would need separate Redis; one counts, one checks trust.
    capped = await startInstance('capped', { ...env, WS_MAX_PER_IP: '3', USER_COUNT_RESEND_MS: '300' });
    untrusting = await startInstance('untrusting', { ...env, WS_MAX_PER_IP: '2', TRUST_PROXY: 'false' });
  });

  afterEach(async () => {
    for (const r of recorders.splice(0)) r.close();
    for (const s of sockets.splice(0)) s.close();
    await eventually(
      async () => !/^realtime_sockets_connected [1-9]/m.test((await capped.app.inject('/metrics')).body),
      'the sockets to leave',
    );
  });

  afterAll(async () => {
    for (const r of recorders.splice(0)) r.close();
    for (const s of sockets.splice(0)) s.close();
    await Promise.allSettled([capped?.stop(), untrusting?.stop()]);
    await game?.close();
    await Promise.allSettled([redis?.stop(), nats?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('refuses a socket beyond WS_MAX_PER_IP from one address with the reason, and takes one once a slot is free', async () => {
    const held = [open(capped.url), open(capped.url), open(capped.url)];
    await eventually(() => held.every((r) => r.socket.connected), 'three sockets');
    const fourth = open(capped.url);
    await eventually(() => fourth.errors.length > 0, 'the fourth to be refused');
    expect(fourth.errors[0]).toBe('Too many connections from your address (at most 3)');
    expect(fourth.socket.connected).toBe(false);
    held[0]!.close();
    const fifth = open(capped.url);
    await eventually(() => fifth.socket.connected, 'a socket once one left');
  });

  it('holds the cap across instances: slots are leases in Redis, given back when a socket leaves', async () => {
    const second = await startInstance('capped-2', {
      REDIS_URL: redis.urlFor('realtime'),
      NATS_URL: nats.url,
      JWT_PUBLIC_KEY: keys.publicKey,
      WS_MAX_PER_IP: '3',
    });
    try {
      const here = [openFrom(capped.url, '192.0.2.44'), openFrom(capped.url, '192.0.2.44')];
      const there = openFrom(second.url, '192.0.2.44');
      await eventually(() => [...here, there].every((s) => s.connected), 'three sockets on two instances');
      const errors: string[] = [];
      const fourth = openFrom(second.url, '192.0.2.44');
      fourth.on('connect_error', (error) => errors.push(error.message));
      await eventually(() => errors.length > 0, 'the fourth, on the other instance, to be refused');
      expect(errors[0]).toBe('Too many connections from your address (at most 3)');
      // The same /64 is the same address; another address is not. Three connect first (opened at once,
      // which of four is refused would be a race), then a fourth from the same /64 is refused.
      const v6 = [1, 2, 3].map((i) => openFrom(i % 2 ? capped.url : second.url, `2001:db8:44::${i}`));
      await eventually(() => v6.every((s) => s.connected), 'three sockets from one /64');
      const errorsV6: string[] = [];
      const fourthV6 = openFrom(second.url, '2001:db8:44::4');
      fourthV6.on('connect_error', (error) => errorsV6.push(error.message));
      await eventually(() => errorsV6.length > 0, 'a /64 capped');
      expect(errorsV6[0]).toBe('Too many connections from your address (at most 3)');
      here[0]!.close();
      const fifth = openFrom(second.url, '192.0.2.44');
      await eventually(() => fifth.connected, 'a socket on the other instance once one left');
    } finally {
      for (const s of sockets.splice(0)) s.close();
      await second.stop();
    }
  });

  it("gives a dead instance's slots back: its leases lapse when it stops renewing them", async () => {
    const dying = new Redis(redis.urlFor('realtime'));
    const living = new Redis(redis.urlFor('realtime'));
    // Leases of 2 s, renewed every 667 ms: a stall of a busy machine between two lines below does not
    // lapse them before the instance dies.
    const crashed = new AddressLeases(dying, 2, 2000);
    const survivor = new AddressLeases(living, 2, 2000);
    try {
      expect(await crashed.acquire('192.0.2.99', 'dead:1')).toBe(true);
      expect(await crashed.acquire('192.0.2.99', 'dead:2')).toBe(true);
      expect(await survivor.acquire('192.0.2.99', 'live:1')).toBe(false);
      // The instance dies: nothing renews or releases its leases.
      dying.disconnect();
      await eventually(() => survivor.acquire('192.0.2.99', 'live:1'), 'a slot once the dead leases lapse');
    } finally {
      await survivor.close();
      await crashed.close();
      living.disconnect();
    }
  });

  it('counts people: many sockets from one address are one, each signed-in user is one', async () => {
    const watcher = open(capped.url);
    open(capped.url);
    await eventually(() => watcher.lastCount() === 1, 'two anonymous sockets from one address to count 1');
    const token = await signAccessToken(keys.privateKey, {
      sub: randomUUID(),
      username: 'ana',
      role: 'standard',
    });
    open(capped.url, { token });
    await eventually(() => watcher.lastCount() === 2, 'a signed-in user to count one more');
    openFrom(capped.url, '203.0.113.9');
    await eventually(() => watcher.lastCount() === 3, 'another address behind the gateway to count one more');
  });

  it('tells addresses apart behind a trusted proxy, each under its own cap, and ignores the header from anyone else', async () => {
    const a = [
      openFrom(capped.url, '198.51.100.1'),
      openFrom(capped.url, '198.51.100.1'),
      openFrom(capped.url, '198.51.100.1'),
    ];
    const b = openFrom(capped.url, '198.51.100.2');
    await eventually(() => [...a, b].every((s) => s.connected), 'three from one address, one from another');
    const refused: string[] = [];
    openFrom(capped.url, '198.51.100.1').on('connect_error', (e) => refused.push(e.message));
    await eventually(() => refused.length > 0, 'the fourth from the first address to be refused');

    // An instance that trusts no proxy caps the peer itself, whatever the header claims.
    const one = openFrom(untrusting.url, '192.0.2.1');
    const two = openFrom(untrusting.url, '192.0.2.2');
    await eventually(() => one.connected && two.connected, 'two sockets');
    const errors: string[] = [];
    openFrom(untrusting.url, '192.0.2.3').on('connect_error', (e) => errors.push(e.message));
    await eventually(() => errors.length > 0, 'a third, whatever its header, to be refused');
  });

  it('sends the user count again at a steady pace, so a listener attached late still gets it', async () => {
    const socket: Socket<ServerToClientEvents> = connectSocket(capped.url, {
      ...SOCKET_CLIENT_OPTIONS,
      reconnection: false,
      forceNew: true,
    });
    sockets.push(socket);
    await eventually(() => socket.connected, 'the socket');
    // Attached after the count sent on connect has gone by.
    await new Promise((r) => setTimeout(r, 200));
    const counts: number[] = [];
    socket.on('userCountUpdate', (count) => counts.push(count));
    await eventually(() => counts.length >= 2, 'two more counts without anyone joining or leaving');
    expect(counts.every((c) => Number.isInteger(c) && c >= 1)).toBe(true);
  });
});
