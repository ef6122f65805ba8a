// The live path end to end behind the gateway: two realtime processes on real Redis and NATS, a
// stand-in game that publishes its state on NATS when clicked, and socket.io clients that connect
// to the gateway with the websocket transport only, as the browser does.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, openSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import {
  makeEvent,
  SOCKET_CLIENT_OPTIONS,
  SUBJECTS,
  type EventPayload,
  type ServerToClientEvents,
} from '@omc/contracts';
import { freePort } from '@omc/infra';
import { connectNats, type Nats } from '@omc/service-kit';
import {
  eventually,
  generateTokenKeys,
  resetNats,
  resetRedis,
  signAccessToken,
  testInfra,
  workspaceRoot,
} from '@omc/testkit';
import { io as connectSocket, type Socket } from 'socket.io-client';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startGateway, startStandIn, type Gateway, type StandIn } from './support.js';

type GameState = EventPayload<typeof SUBJECTS.gameState>;

interface Realtime {
  name: string;
  url: string;
  child: ChildProcess;
}

/** Every realtime process started, so each is stopped even when a start-up fails half way. */
const spawned: Realtime[] = [];

async function startRealtime(name: string, env: Record<string, string>, at?: number): Promise<Realtime> {
  const port = at ?? (await freePort());
  const logDir = join(workspaceRoot(), '.data', 'test', 'logs');
  mkdirSync(logDir, { recursive: true });
  // Its output, for when it fails to start.
  const log = openSync(join(logDir, `gateway-live-${name}-${process.pid}.log`), 'w');
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: join(workspaceRoot(), 'services', 'realtime'),
    env: {
      ...process.env,
      ...env,
      PORT: String(port),
      HOST: '127.0.0.1',
      INSTANCE_NAME: name,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', log, log],
  });
  const url = `http://127.0.0.1:${port}`;
  spawned.push({ name, url, child });
  await eventually(async () => (await fetch(`${url}/readyz`)).ok, `${name} to be ready`, 100_000);
  return { name, url, child };
}

async function kill(realtime: Realtime | undefined): Promise<void> {
  if (!realtime || realtime.child.exitCode !== null || realtime.child.signalCode !== null) return;
  const exited = new Promise((resolve) => realtime.child.once('exit', resolve));
  process.kill(realtime.child.pid!, 'SIGKILL');
  await exited;
}

/** How long the gateway skips a realtime instance that refused an upgrade (docs/realtime-gateway.md). */
const SKIPPED_AFTER_REFUSAL_MS = 3_000;

async function socketsOn(realtime: Realtime): Promise<number> {
  const metrics = await (await fetch(`${realtime.url}/metrics`)).text();
  const line = metrics.split('\n').find((l) => l.startsWith('realtime_sockets_connected'));
  return Number(line?.split(' ').at(-1));
}

interface Client {
  socket: Socket<ServerToClientEvents>;
  states: Parameters<ServerToClientEvents['gameStateUpdate']>[0][];
  counts: number[];
  errors: string[];
}

describe('live updates through the gateway', () => {
  const keys = generateTokenKeys();
  let nats: Nats;
  let game: StandIn;
  let state: GameState;
  let realtimes: Realtime[] = [];
  let gateway: Gateway;
  let token: string;
  let env: Record<string, string>;
  const clients: Client[] = [];

  const publishState = () =>
    nats.nc.publish(SUBJECTS.gameState, JSON.stringify(makeEvent(SUBJECTS.gameState, state)));
  const open = (options: { token?: string } = {}): Client => {
    const socket: Socket<ServerToClientEvents> = connectSocket(gateway.url, {
      ...SOCKET_CLIENT_OPTIONS,
      reconnectionDelay: 100,
      reconnectionDelayMax: 300,
      forceNew: true,
      ...(options.token ? { auth: { token: options.token } } : {}),
    });
    const client: Client = { socket, states: [], counts: [], errors: [] };
    socket.on('connect_error', (error) => client.errors.push(error.message));
    socket.on('gameStateUpdate', (s) => client.states.push(s));
    socket.on('userCountUpdate', (c) => client.counts.push(c));
    clients.push(client);
    return client;
  };

  beforeAll(async () => {
    await Promise.all([resetNats(), resetRedis()]);
    const infra = testInfra();
    nats = await connectNats(infra.natsUrl, 'test-game');
    state = {
      round: 1,
      globalClicks: 0,
      potCents: 500,
      lastClickUser: null,
      lastWinner: null,
      at: Date.now(),
    };
    nats.nc.subscribe(SUBJECTS.gameStateRequest, {
      callback: (_e, msg) => msg.respond(JSON.stringify(makeEvent(SUBJECTS.gameState, state))),
    });
    // The game's part: a click through the gateway raises the counter and publishes the state.
    game = await startStandIn('game', (app) => {
      app.post('/api/game/click', async (request) => {
        const username = request.headers.authorization ? 'alice' : null;
        state = { ...state, globalClicks: state.globalClicks + 1, lastClickUser: username, at: Date.now() };
        publishState();
        return { globalClicks: state.globalClicks, freeClicks: 10 };
      });
    });
    env = {
      REDIS_URL: infra.redisUrls.realtime,
      NATS_URL: infra.natsUrl,
      JWT_PUBLIC_KEY: keys.publicKey,
      DRAIN_MS: '1500',
    };
    realtimes = await Promise.all([startRealtime('rt-1', env), startRealtime('rt-2', env)]);
    gateway = await startGateway({
      AUTH_URL: game.url,
      GAME_URL: game.url,
      PAYMENTS_URL: game.url,
      REALTIME_URLS: realtimes.map((r) => r.url).join(','),
      REDIS_URL: infra.redisUrls.gateway,
      RATE_LIMIT_PER_IP: '0',
    });
    token = await signAccessToken(keys.privateKey, {
      sub: randomUUID(),
      username: 'alice',
      role: 'standard',
    });
  });

  afterEach(() => {
    for (const c of clients.splice(0)) c.socket.close();
  });

  afterAll(async () => {
    for (const c of clients.splice(0)) c.socket.close();
    await gateway?.close();
    await Promise.all(spawned.map(kill));
    await game?.close();
    await nats?.close();
  });

  const click = (bearer?: string) =>
    fetch(`${gateway.url}/api/game/click`, {
      method: 'POST',
      headers: bearer ? { authorization: `Bearer ${bearer}` } : {},
    }).then((r) => r.json());

  it('delivers updates caused by clicks made through the gateway, over websocket only, on both instances', async () => {
    const player = open({ token });
    const guest = open();
    await eventually(() => player.socket.connected && guest.socket.connected, 'both sockets to connect');
    // The current state at once, then one update per click.
    await eventually(() => player.states.length > 0 && guest.states.length > 0, 'the state on connect');
    expect(player.states[0]).toEqual({ globalClicks: 0, pot: 5, lastClickUser: null, lastWinner: null });
    expect(guest.states[0]).toEqual({ globalClicks: 0, pot: 5, lastClickUser: null, lastWinner: null });
    expect(player.socket.io.engine.transport.name).toBe('websocket');

    // Round-robin: one socket on each instance.
    expect(await Promise.all(realtimes.map(socketsOn))).toEqual([1, 1]);
    await eventually(
      () => player.counts.at(-1) === 2 && guest.counts.at(-1) === 2,
      'a user count of 2 on both',
    );

    for (let i = 1; i <= 3; i += 1) {
      expect(await click(token)).toEqual({ globalClicks: i, freeClicks: 10 });
      await eventually(
        () => player.states.at(-1)?.globalClicks === i && guest.states.at(-1)?.globalClicks === i,
        `click ${i} on both sockets`,
      );
    }
    expect(player.states.at(-1)).toEqual({
      globalClicks: 3,
      pot: 5,
      lastClickUser: 'alice',
      lastWinner: null,
    });
    expect(guest.states.at(-1)).toEqual(player.states.at(-1));
  });

  it('holds at most WS_MAX_PER_IP live connections per address, refusing the next with 429 and the reason', async () => {
    const capped = await startGateway({
      AUTH_URL: game.url,
      GAME_URL: game.url,
      PAYMENTS_URL: game.url,
      REALTIME_URLS: realtimes.map((r) => r.url).join(','),
      REDIS_URL: testInfra().redisUrls.gateway,
      RATE_LIMIT_PER_IP: '0',
      WS_MAX_PER_IP: '3',
    });
    const held: Socket[] = [];
    const upgrade = () =>
      new Promise<{ status: number; body: string }>((resolve, reject) => {
        const request = httpRequest(`${capped.url}/socket.io/?EIO=4&transport=websocket`, {
          headers: {
            connection: 'Upgrade',
            upgrade: 'websocket',
            'sec-websocket-version': '13',
            'sec-websocket-key': randomBytes(16).toString('base64'),
          },
        });
        request.on('upgrade', (_response, socket) => {
          socket.destroy();
          resolve({ status: 101, body: '' });
        });
        request.on('response', (response) => {
          let body = '';
          response.on('data', (chunk) => (body += chunk));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
        request.on('error', reject);
        request.end();
      });
    try {
      for (let i = 0; i < 3; i += 1) {
        const socket: Socket = connectSocket(capped.url, { ...SOCKET_CLIENT_OPTIONS, forceNew: true });
        held.push(socket);
      }
      await eventually(() => held.every((s) => s.connected), 'three sockets to connect');
      const refused = await upgrade();
      expect(refused.status).toBe(429);
      const message = 'Too many live connections from your address (at most 3)';
      expect(JSON.parse(refused.body)).toMatchObject({ message, error: message, msg: message });
      // A socket.io client is refused too, and gets in once a slot is free.
      const fourth: Socket = connectSocket(capped.url, {
        ...SOCKET_CLIENT_OPTIONS,
        forceNew: true,
        reconnectionDelay: 100,
        reconnectionDelayMax: 200,
      });
      held.push(fourth);
      const errors: string[] = [];
      fourth.on('connect_error', (error) => errors.push(error.message));
      await eventually(() => errors.length > 0, 'the fourth to be refused');
      expect(fourth.connected).toBe(false);
      held[0]!.close();
      await eventually(() => fourth.connected, 'the fourth to get in once one left');
    } finally {
      for (const s of held) s.close();
      await capped.close();
    }
  });

  it('gives a reconnecting client the current state at once', async () => {
    const client = open({ token });
    await eventually(() => client.states.length > 0, 'the first state');
    await click(token);
    const current = state.globalClicks;
    await eventually(() => client.states.at(-1)?.globalClicks === current, 'the click');

    client.socket.disconnect();
    client.states.length = 0;
    client.socket.connect();
    await eventually(() => client.states.length > 0, 'the state on reconnect');
    expect(client.states[0]).toEqual({
      globalClicks: current,
      pot: 5,
      lastClickUser: 'alice',
      lastWinner: null,
    });
  });

  it('moves the clients of an instance stopped for a rollout to the other one, with no error and the state', async () => {
    const crowd = Array.from({ length: 6 }, () => open());
    await eventually(() => crowd.every((c) => c.states.length > 0), 'all connected');
    expect(await Promise.all(realtimes.map(socketsOn))).toEqual([3, 3]);
    const leaving = realtimes[0]!;
    const exited = new Promise((resolve) => leaving.child.once('exit', resolve));
    process.kill(leaving.child.pid!, 'SIGTERM');
    await exited;
    await eventually(async () => (await socketsOn(realtimes[1]!)) === 6, 'all on the other instance', 15_000);
    await eventually(() => crowd.every((c) => c.socket.connected), 'all reconnected');
    // The draining instance refused new upgrades with a 503, which the gateway took as a reason to try
    // the other: no client saw a failed connection.
    expect(crowd.flatMap((c) => c.errors)).toEqual([]);
    for (const c of crowd) expect(c.states.at(-1)?.globalClicks).toBe(state.globalClicks);
    // Back to two instances for what follows, once the gateway tries the restarted one again: it skips
    // an instance that refused an upgrade for 3 s (docs/realtime-gateway.md).
    realtimes[0] = await startRealtime(leaving.name, env, Number(new URL(leaving.url).port));
    await new Promise((resolve) => setTimeout(resolve, SKIPPED_AFTER_REFUSAL_MS));
  });

  it('moves clients to the surviving instance when one dies, with the state at once and the count right', async () => {
    // Two people: guests from one address would count as one (the count counts people, not sockets).
    const other = await signAccessToken(keys.privateKey, {
      sub: randomUUID(),
      username: 'bob',
      role: 'standard',
    });
    const first = open({ token });
    const second = open({ token: other });
    await eventually(() => first.states.length > 0 && second.states.length > 0, 'both connected');
    expect(await Promise.all(realtimes.map(socketsOn))).toEqual([1, 1]);

    await kill(realtimes[0]);
    const survivor = realtimes[1]!;
    // The socket that was on the dead instance reconnects through the gateway to the survivor.
    await eventually(async () => (await socketsOn(survivor)) === 2, 'both sockets on the survivor', 15_000);
    await eventually(() => first.socket.connected && second.socket.connected, 'both reconnected');
    const current = state.globalClicks;
    for (const c of [first, second]) expect(c.states.at(-1)?.globalClicks).toBe(current);
    await eventually(
      () => first.counts.at(-1) === 2 && second.counts.at(-1) === 2,
      'the count of 2 without the dead instance',
      // The dead instance's presence key lapses within 3 s and the count is sent again within 5 s; the
      // rest is room for a loaded machine.
      30_000,
    );

    await click();
    await eventually(
      () => [first, second].every((c) => c.states.at(-1)?.globalClicks === current + 1),
      'the next click on both',
    );
  });

  it('answers an upgrade outside /socket.io with a 404, and a 503 when no realtime instance is up', async () => {
    const upgrade = {
      connection: 'Upgrade',
      upgrade: 'websocket',
      'sec-websocket-version': '13',
      'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==',
    };
    const elsewhere = await rawRequest(gateway.url, '/api/game/state', { headers: upgrade });
    expect(elsewhere.status).toBe(404);
    const tricky = await rawRequest(gateway.url, '/socket.io/..%2F..%2Freadyz', { headers: upgrade });
    expect(tricky.status).toBe(404);

    await Promise.all(realtimes.map(kill));
    const down = await rawRequest(gateway.url, '/socket.io/?EIO=4&transport=websocket', { headers: upgrade });
    expect(down.status).toBe(503);
    expect(JSON.parse(down.body)).toMatchObject({
      message: 'The live service is unavailable, try again shortly',
      error: expect.any(String),
    });
  });
});
