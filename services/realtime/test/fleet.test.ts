// Several realtime instances on one Redis and one NATS, as a rollout and a crowd see them: each broadcast
// reaches each socket exactly once, a stopping instance moves its sockets to another without losing the
// state, and a reconnecting player learns over the socket whether their profile changed.
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { makeEvent, SUBJECTS } from '@omc/contracts';
import { startNats, startRedis, type RedisHandle, type ServerHandle } from '@omc/infra';
import { publishEvent } from '@omc/service-kit';
import { eventually, generateTokenKeys, signAccessToken, workspaceRoot } from '@omc/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  connected,
  record,
  sleep,
  startFakeGame,
  startInstance,
  startReadyBalancer,
  type FakeGame,
  type Instance,
  type Recorder,
} from './support.js';

const dataDir = join(workspaceRoot(), '.data', 'test', `realtime-fleet-${process.pid}`);

describe('a fleet of realtime instances', () => {
  const keys = generateTokenKeys();
  let redis: RedisHandle;
  let nats: ServerHandle;
  let game: FakeGame;
  let env: Record<string, string>;
  const instances: Instance[] = [];
  const recorders: Recorder[] = [];
  const open = (url: string, options: Parameters<typeof record>[1] = {}) => {
    const r = record(url, { from: `198.19.0.${recorders.length + 1}`, ...options });
    recorders.push(r);
    return r;
  };
  const sockets = (instance: Instance) => instance.started.live.io.of('/').sockets.size;
  const launch = async (name: string, extra: Record<string, string> = {}) => {
    const instance = await startInstance(name, { ...env, ...extra });
    instances.push(instance);
    return instance;
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
  });

  afterEach(async () => {
    for (const r of recorders.splice(0)) r.close();
    await Promise.allSettled(instances.splice(0).map((i) => i.stop()));
  });

  afterAll(async () => {
    await game?.close();
    await Promise.allSettled([redis?.stop(), nats?.stop()]);
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('delivers each broadcast to each socket of three instances exactly once', async () => {
    const three = await Promise.all(['f1', 'f2', 'f3'].map((name) => launch(name)));
    const crowd = three.flatMap((instance) => [0, 1, 2, 3].map(() => open(instance.url)));
    await connected(...crowd);
    for (const instance of three) expect(sockets(instance)).toBe(4);

    // The state each socket is sent on connect may come again with the instance's first tick (the same
    // state, not a second broadcast): a first broadcast every socket has seen marks where counting starts.
    game.publish({ globalClicks: 1 });
    await eventually(() => crowd.every((r) => r.lastState()?.globalClicks === 1), 'the first broadcast');
    const from = crowd.map((r) => r.states.length);

    const round = game.state.round + 1;
    await game.win({ round, username: 'ana', potCents: 700 });
    await game.win({ round: round + 1, username: 'bea', potCents: 900 });
    game.publish({ round: round + 2, globalClicks: 5 });
    await eventually(
      () => crowd.every((r) => r.winners.length === 2 && r.lastState()?.globalClicks === 5),
      'both winners and the last state on every socket',
    );
    // Anything doubled would have arrived by now: the same event travels to all sockets at once.
    await sleep(300);
    crowd.forEach((r, i) => {
      expect(r.winners).toEqual([
        { username: 'ana', pot: 7 },
        { username: 'bea', pot: 9 },
      ]);
      // Each broadcast once: the states a socket saw since the first broadcast never repeat.
      const seen = r.states.slice(from[i]).map((s) => JSON.stringify(s));
      expect(new Set(seen).size, seen.join(' ')).toBe(seen.length);
    });
  });

  it('on stopping, fails readiness first, tells every socket to move, and they all come back to the other instance with the current state', async () => {
    const leaving = await launch('drained', { DRAIN_MS: '2000' });
    const staying = await launch('staying');
    const balancer = await startReadyBalancer(() => [leaving.url, staying.url]);
    try {
      game.publish({ globalClicks: 40 });
      const crowd = Array.from({ length: 12 }, () => open(balancer.url));
      await connected(...crowd);
      expect(sockets(leaving)).toBe(12);
      expect(sockets(staying)).toBe(0);
      // What /readyz answered at the moment each socket was told to move.
      const readyWhenMoved: number[] = [];
      for (const r of crowd)
        r.socket.on('move', () => {
          void fetch(`${leaving.url}/readyz`).then(
            (answer) => readyWhenMoved.push(answer.status),
            () => readyWhenMoved.push(0),
          );
        });

      const stopped = leaving.stop();
      await eventually(() => crowd.every((r) => r.moves === 1), 'every socket told to move');
      await eventually(() => crowd.every((r) => r.connects === 2 && r.socket.connected), 'every socket back');
      await eventually(() => readyWhenMoved.length === crowd.length, 'the readiness probes');
      await stopped;
      // Not ready (503) while it moved them, or no longer listening (0) once they were gone.
      expect(readyWhenMoved.every((status) => status === 503 || status === 0)).toBe(true);
      expect(readyWhenMoved.filter((status) => status === 503).length).toBeGreaterThan(0);
      expect(sockets(staying)).toBe(12);
      // Every socket has the current state from its new instance, and the next one too.
      for (const r of crowd) expect(r.lastState()?.globalClicks).toBe(40);
      game.publish({ globalClicks: 41 });
      await eventually(() => crowd.every((r) => r.lastState()?.globalClicks === 41), 'the next state');
      expect(crowd.flatMap((r) => r.errors)).toEqual([]);
    } finally {
      balancer.close();
    }
  });

  it('gives a signed-in socket its profile stamp on connect: the same until something of the player changes', async () => {
    const instance = await launch('stamps');
    const userId = randomUUID();
    const token = await signAccessToken(keys.privateKey, { sub: userId, username: 'cleo', role: 'standard' });
    const player = open(instance.url, { token });
    const guest = open(instance.url);
    await connected(player, guest);
    await eventually(() => player.stamps.length === 1, 'the stamp');

    const reconnect = async (expected: number) => {
      player.socket.disconnect().connect();
      await eventually(() => player.stamps.length === expected, `stamp ${expected}`);
    };
    await reconnect(2);
    expect(player.stamps[1]).toBe(player.stamps[0]);

    // A purchase completed while the player was away.
    const purchase = makeEvent(SUBJECTS.purchaseCompleted, {
      purchaseId: randomUUID(),
      userId,
      packId: 'clicks100',
      clicks: 100,
      unlimited: false,
      amountCents: 99,
      potShareCents: 50,
      houseShareCents: 49,
      transactionId: 'tx-1',
    });
    await publishEvent(game.nats.js, purchase);
    await eventually(async () => {
      await reconnect(player.stamps.length + 1);
      return player.stamps.at(-1) !== player.stamps[0];
    }, 'a new stamp after the purchase');
    // A guest has no profile: no stamp.
    expect(guest.stamps).toEqual([]);
  });
});
