// Two realtime instances on a Redis and a NATS of this file's own (so they can be restarted), with the
// game's part played on real NATS: what players on either instance receive.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { freePort, startNats, startRedis, type RedisHandle, type ServerHandle } from '@omc/infra';
import { makeEvent, SUBJECTS } from '@omc/contracts';
import { publishEvent } from '@omc/service-kit';
import { eventually, generateTokenKeys, signAccessToken, workspaceRoot } from '@omc/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  connected,
  counters,
  record,
  sleep,
  startFakeGame,
  startInstance,
  type FakeGame,
  type Instance,
  type Recorder,
} from './support.js';

const dataDir = join(workspaceRoot(), '.data', 'test', `realtime-live-${process.pid}`);

describe('realtime with two instances', () => {
  const keys = generateTokenKeys();
  let redis: RedisHandle;
  let nats: ServerHandle;
  let game: FakeGame;
  let a: Instance;
  let b: Instance;
  let env: Record<string, string>;
  let playerToken: string;
  const recorders: Recorder[] = [];
  // Each socket from an address of its own, as separate people behind the gateway: the count counts people.
  let nextAddress = 0;
  const open = (url: string, options: Parameters<typeof record>[1] = {}) => {
    nextAddress += 1;
    const r = record(url, { from: `198.18.${nextAddress >> 8}.${nextAddress & 255}`, ...options });
    recorders.push(r);
    return r;
  };

  // One instance runs as a process of its own, to be killed with SIGKILL.
  let child: ChildProcess | undefined;
  let processUrl = '';
  const startProcess = async () => {
    const port = await freePort();
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: join(import.meta.dirname, '..'),
      env: {
        ...process.env,
        ...env,
        PORT: String(port),
        HOST: '127.0.0.1',
        INSTANCE_NAME: 'd',
        LOG_LEVEL: 'warn',
      },
      stdio: 'ignore',
    });
    processUrl = `http://127.0.0.1:${port}`;
    // Starting a process is slow on a busy machine: this runs beside the in-process instances.
    await eventually(async () => (await fetch(`${processUrl}/readyz`)).ok, 'instance d to be ready', 100_000);
  };
  const killChild = async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    process.kill(child.pid!, 'SIGKILL');
    await exited;
  };

  beforeAll(async () => {
    [redis, nats] = await Promise.all([startRedis(join(dataDir, 'redis')), startNats(join(dataDir, 'nats'))]);
    game = await startFakeGame(nats.url);
    env = {
      REDIS_URL: redis.urlFor('realtime'),
      NATS_URL: nats.url,
      JWT_PUBLIC_KEY: keys.publicKey,
      BROADCAST_HZ: '10',
    };
    [a, b] = await Promise.all([startInstance('a', env), startInstance('b', env), startProcess()]);
    playerToken = await signAccessToken(keys.privateKey, {
      sub: randomUUID(),
      username: 'alice',
      role: 'standard',
    });
  });

  afterEach(() => {
    for (const r of recorders.splice(0)) r.close();
  });

  afterAll(async () => {
    for (const r of recorders.splice(0)) r.close();
    await killChild();
    await Promise.allSettled([a?.stop(), b?.stop()]);
    await game?.close();
    await Promise.allSettled([redis?.stop(), nats?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('is ready with Redis and NATS, and exposes its metrics', async () => {
    const ready = await a.app.inject('/readyz');
    expect(ready.statusCode).toBe(200);
    expect(ready.json()).toEqual({ status: 'ready', checks: { redis: 'ok', nats: 'ok' } });
    const metrics = (await a.app.inject('/metrics')).body;
    for (const name of [
      'realtime_sockets_connected',
      'realtime_messages_emitted_total',
      'realtime_broadcast_lag_seconds',
      'realtime_events_consumed_total',
    ]) {
      expect(metrics).toContain(name);
    }
  });

  it('sends the whole current state at once on connect, to a player and to a socket with no token alike', async () => {
    const watcher = open(a.url);
    game.publish({ globalClicks: 42, potCents: 1250, lastClickUser: 'alice', lastWinner: 'bob' });
    await eventually(() => watcher.lastState()?.globalClicks === 42, 'the instance to hear the state');
    await eventually(
      async () =>
        (await b.app.inject('/metrics')).body.includes(
          'realtime_events_consumed_total{subject="game.state.v1"',
        ),
      'b to hear it',
    );

    const player = open(b.url, { token: playerToken });
    const guest = open(a.url);
    await eventually(() => player.states.length > 0 && guest.states.length > 0, 'the first state');
    expect(player.states[0]).toEqual({
      globalClicks: 42,
      pot: 12.5,
      lastClickUser: 'alice',
      lastWinner: 'bob',
    });
    expect(guest.states[0]).toEqual({
      globalClicks: 42,
      pot: 12.5,
      lastClickUser: 'alice',
      lastWinner: 'bob',
    });
    expect(typeof guest.counts[0]).toBe('number');

    // The token may come as an Authorization header instead.
    const byHeader = open(a.url, { header: `Bearer ${playerToken}` });
    await eventually(() => byHeader.states.length > 0, 'the first state by header');
    expect(byHeader.states[0]).toEqual({
      globalClicks: 42,
      pot: 12.5,
      lastClickUser: 'alice',
      lastWinner: 'bob',
    });
  });

  it('delivers every tick to a socket on each instance, coalesced, and never backwards within a round', async () => {
    const onA = open(a.url, { token: playerToken });
    const onB = open(b.url, { token: playerToken });
    const guestOnB = open(b.url);
    await connected(onA, onB, guestOnB);
    const all = [onA, onB, guestOnB];

    // One state per tick: each reaches every socket.
    for (let clicks = 101; clicks <= 105; clicks += 1) {
      game.publish({ globalClicks: clicks, potCents: clicks * 10 });
      await eventually(
        () => all.every((r) => r.lastState()?.globalClicks === clicks),
        `counter ${clicks} everywhere`,
      );
    }
    expect(onA.lastState()).toEqual({
      globalClicks: 105,
      pot: 10.5,
      lastClickUser: 'alice',
      lastWinner: 'bob',
    });
    expect(guestOnB.lastState()).toEqual(onA.lastState());

    // A burst of clicks, then a late (stale) state: a few broadcasts, ending at the newest counter.
    const before = onA.states.length;
    for (let clicks = 200; clicks < 400; clicks += 1) game.publish({ globalClicks: clicks });
    game.publish({ globalClicks: 150 });
    await eventually(() => all.every((r) => r.lastState()?.globalClicks === 399), 'the burst to land');
    await sleep(400);
    for (const r of all) {
      expect(r.lastState()?.globalClicks).toBe(399);
      const seen = counters(r);
      expect(seen).toEqual([...seen].sort((x, y) => x - y));
    }
    expect(onA.states.length - before).toBeLessThan(50);

    // A new round starts from 0; a late state of the old round is dropped.
    game.publish({ round: 2, globalClicks: 3, potCents: 0 });
    await eventually(() => all.every((r) => r.lastState()?.globalClicks === 3), 'the new round');
    game.state = { ...game.state, round: 1 };
    game.publish({ globalClicks: 500 });
    game.state = { ...game.state, round: 2 };
    game.publish({ globalClicks: 4 });
    await eventually(
      () => all.every((r) => r.lastState()?.globalClicks === 4),
      'the next click of the new round',
    );
    for (const r of all) expect(counters(r)).not.toContain(500);
  });

  it('never sends a state that breaks its contract, however new it looks', async () => {
    const onA = open(a.url, { token: playerToken });
    await connected(onA);
    game.publish({ globalClicks: 600 });
    await eventually(() => onA.lastState()?.globalClicks === 600, 'the valid state');
    // A newer counter with a pot that is not a whole number of cents: dropped when the tick looks at it.
    const valid = makeEvent(SUBJECTS.gameState, { ...game.state, globalClicks: 601, at: Date.now() });
    game.nats.nc.publish(
      SUBJECTS.gameState,
      JSON.stringify({ ...valid, data: { ...valid.data, potCents: 12.5 } }),
    );
    game.publish({ globalClicks: 602 });
    await eventually(() => onA.lastState()?.globalClicks === 602, 'the next valid state');
    expect(counters(onA)).not.toContain(601);
    // The next tests count from a new round.
    game.publish({ round: game.state.round + 1, globalClicks: 0 });
    await eventually(() => onA.lastState()?.globalClicks === 0, 'a new round');
  });

  it('announces each winner exactly once on every instance', async () => {
    const onA = open(a.url);
    const onB = open(b.url, { token: playerToken });
    await connected(onA, onB);
    const id = await game.win({ round: 2, username: 'carol', potCents: 1250 });
    await eventually(() => onA.winners.length === 1 && onB.winners.length === 1, 'the winner on both');
    expect(onA.winners[0]).toEqual({ username: 'carol', pot: 12.5 });
    expect(onB.winners[0]).toEqual({ username: 'carol', pot: 12.5 });

    await game.win({ round: 2, username: 'carol', potCents: 1250 }, id); // a retried publish
    await game.win({ round: 3, username: 'dave', potCents: 99 });
    await eventually(() => onA.winners.length >= 2 && onB.winners.length >= 2, 'the next winner on both');
    await sleep(300);
    for (const r of [onA, onB])
      expect(r.winners).toEqual([
        { username: 'carol', pot: 12.5 },
        { username: 'dave', pot: 0.99 },
      ]);
  });

  it('refuses a bad or expired token at connect', async () => {
    const otherKeys = generateTokenKeys();
    const forged = await signAccessToken(otherKeys.privateKey, {
      sub: randomUUID(),
      username: 'mallory',
      role: 'admin',
    });
    const expired = await signAccessToken(keys.privateKey, {
      sub: randomUUID(),
      username: 'alice',
      role: 'standard',
      exp: Math.floor(Date.now() / 1000) - 60,
    });
    const cases = [
      { token: 'not-a-token', message: 'Invalid token' },
      { token: forged, message: 'Invalid token' },
      { token: expired, message: 'Token expired' },
      { header: 'Basic dXNlcjpwYXNz', message: 'Authorization header must be "Bearer <token>"' },
    ];
    for (const { token, header, message } of cases as {
      token?: string;
      header?: string;
      message: string;
    }[]) {
      const r = open(a.url, {
        ...(token ? { token } : {}),
        ...(header ? { header } : {}),
        reconnection: false,
      });
      await eventually(() => r.errors.length > 0, 'the refusal');
      expect(r.errors[0]).toBe(message);
      expect(r.states).toEqual([]);
    }
  });

  it('disconnects the sockets of an ended session on every instance and refuses its token at connect', async () => {
    const userId = randomUUID();
    const inSession = (sid: string) =>
      signAccessToken(keys.privateKey, { sub: userId, username: 'erin', role: 'standard', sid, sv: 0 });
    const sessionId = randomUUID();
    const thief = await inSession(sessionId);
    const owner = await inSession(randomUUID());
    const onA = open(a.url, { token: thief });
    const onB = open(b.url, { token: thief });
    const ownerOnA = open(a.url, { token: owner });
    await connected(onA, onB, ownerOnA);
    await publishEvent(
      game.nats.js,
      makeEvent(SUBJECTS.sessionEnded, {
        userId,
        sessionId,
        until: new Date(Date.now() + 16 * 60_000).toISOString(),
      }),
    );
    await eventually(() => !onA.socket.connected && !onB.socket.connected, 'the sockets closed');
    expect(ownerOnA.socket.connected).toBe(true);
    for (const url of [a.url, b.url]) {
      const again = open(url, { token: thief, reconnection: false });
      await eventually(() => again.errors.length > 0, 'the refusal');
      expect(again.errors[0]).toMatch(/session was ended/);
    }
  });

  it('disconnects a signed-in socket once its token expires, and sends it no more state', async () => {
    const shortLived = await signAccessToken(keys.privateKey, {
      sub: randomUUID(),
      username: 'frank',
      role: 'standard',
      exp: Math.floor(Date.now() / 1000) + 2,
    });
    const player = open(a.url, { token: shortLived, reconnection: false });
    const guest = open(a.url);
    await connected(player, guest);
    // The sweep runs every second: gone within a second or two of the token's expiry.
    await eventually(() => !player.socket.connected, 'the socket closed at expiry', 15_000);
    const states = player.states.length;
    const next = game.state.globalClicks + 1;
    game.publish({ globalClicks: next });
    await eventually(() => guest.lastState()?.globalClicks === next, 'the state to the guest');
    expect(player.states.length).toBe(states);
    expect(guest.socket.connected).toBe(true);
  });

  it('counts users across both instances, and forgets an instance that stops or dies', async () => {
    const onA = open(a.url);
    const onB = open(b.url);
    await connected(onA, onB);
    await eventually(() => onA.lastCount() === 2 && onB.lastCount() === 2, 'a count of 2 everywhere');

    // A third instance in this process, closed gracefully.
    const c = await startInstance('c', env);
    try {
      const onC = [open(c.url), open(c.url)];
      await connected(...onC);
      await eventually(() => [onA, onB, ...onC].every((r) => r.lastCount() === 4), 'a count of 4 everywhere');
    } finally {
      await c.stop();
    }
    await eventually(
      () => onA.lastCount() === 2 && onB.lastCount() === 2,
      'the count back to 2 after c stopped',
    );

    // A fourth, its own process (started in beforeAll), killed without a chance to say goodbye.
    const onD = open(processUrl, { reconnection: false });
    await connected(onD);
    await eventually(() => [onA, onB, onD].every((r) => r.lastCount() === 3), 'a count of 3 everywhere');
    await killChild();
    // Its count expires 3 s after its last heartbeat; a busy machine gets more room than that.
    await eventually(
      () => onA.lastCount() === 2 && onB.lastCount() === 2,
      "the dead instance's socket to vanish",
      30_000,
    );
  }, 60_000);

  it('keeps broadcasting through a Redis restart, and the count recovers by itself', async () => {
    const onA = open(a.url);
    const onB = open(b.url);
    await connected(onA, onB);
    await eventually(() => onA.lastCount() === 2 && onB.lastCount() === 2, 'a count of 2');
    const port = Number(new URL(redis.url).port);

    await redis.stop();
    // Sockets are still served: the pod stays ready and reports Redis down.
    await eventually(
      async () => (await a.app.inject('/readyz')).json().checks.redis.startsWith('down'),
      'Redis reported down',
    );
    expect((await a.app.inject('/readyz')).statusCode).toBe(200);
    game.publish({ globalClicks: 20 });
    await eventually(
      () => onA.lastState()?.globalClicks === 20 && onB.lastState()?.globalClicks === 20,
      'a state while Redis is down',
    );
    const late = open(b.url);
    await connected(late);

    redis = await startRedis(join(dataDir, 'redis'), { port, passwords: redis.passwords });
    await eventually(
      () => [onA, onB, late].every((r) => r.lastCount() === 3),
      'the count of 3 after Redis returned',
    );
    game.publish({ globalClicks: 21 });
    await eventually(
      () => [onA, onB, late].every((r) => r.lastState()?.globalClicks === 21),
      'a state after Redis returned',
    );
    await eventually(async () => (await b.app.inject('/readyz')).statusCode === 200, 'ready again');
  });

  it('with NATS away past ENDED_SESSIONS_BLIND_MS, signed-in sockets are closed and refused until it answers', async () => {
    const c = await startInstance('c', { ...env, ENDED_SESSIONS_BLIND_MS: '1000' });
    try {
      const token = await signAccessToken(keys.privateKey, {
        sub: randomUUID(),
        username: 'gina',
        role: 'standard',
        sid: randomUUID(),
        sv: 0,
      });
      const player = open(c.url, { token, reconnection: false });
      const guest = open(c.url);
      await connected(player, guest);
      const port = Number(new URL(nats.url).port);
      await nats.stop();
      try {
        // A session may end meanwhile, unheard: past the bound, no signed-in socket is kept.
        await eventually(() => !player.socket.connected, 'the signed-in socket closed', 15_000);
        const again = open(c.url, { token, reconnection: false });
        await eventually(() => again.errors.length > 0, 'the refusal');
        expect(again.errors[0]).toMatch(/cannot currently learn/);
        expect(guest.socket.connected).toBe(true);
      } finally {
        nats = await startNats(join(dataDir, 'nats'), { port });
      }
      await eventually(
        async () => {
          const back = open(c.url, { token, reconnection: false });
          await eventually(() => back.socket.connected || back.errors.length > 0, 'an answer');
          return back.socket.connected;
        },
        'signed-in sockets welcome again once NATS answers',
        30_000,
      );
    } finally {
      await c.stop();
    }
  });

  it('resumes after a NATS restart: states, the current state and winners', async () => {
    const onA = open(a.url);
    const onB = open(b.url);
    await connected(onA, onB);
    const port = Number(new URL(nats.url).port);

    await nats.stop();
    nats = await startNats(join(dataDir, 'nats'), { port });
    let clicks = 30;
    await eventually(
      () => {
        clicks += 1;
        game.publish({ globalClicks: clicks });
        return [onA, onB].every((r) => (r.lastState()?.globalClicks ?? 0) >= 31);
      },
      'states after NATS returned',
      15_000,
    );
    const before = [onA.winners.length, onB.winners.length];
    await eventually(
      async () => (await game.nats.jsm.streams.info('GAME_EVENTS')).state.messages >= 0,
      'JetStream back',
    );
    await game.win({ round: 3, username: 'erin', potCents: 500 });
    await eventually(
      () => onA.winners.length === before[0]! + 1 && onB.winners.length === before[1]! + 1,
      'the winner after NATS returned',
      15_000,
    );
    await sleep(300);
    expect(onA.winners.at(-1)).toEqual({ username: 'erin', pot: 5 });
    expect([onA.winners.length, onB.winners.length]).toEqual([before[0]! + 1, before[1]! + 1]);

    await eventually(() => onA.lastState()?.globalClicks === clicks, 'the last state');
    const fresh = open(a.url);
    await eventually(() => fresh.states.length > 0, 'the state on connect');
    expect(fresh.states[0]?.globalClicks).toBe(clicks);
    await eventually(async () => (await a.app.inject('/readyz')).statusCode === 200, 'ready again');
  });
});
