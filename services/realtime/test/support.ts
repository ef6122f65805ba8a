// The game's part on real NATS (state on core NATS, the current state on request, round won on
// JetStream), realtime instances on free ports, and socket.io clients that record what they receive.
import {
  makeEvent,
  SOCKET_CLIENT_OPTIONS,
  SOCKET_EVENTS,
  STREAMS,
  SUBJECTS,
  type EventPayload,
  type ServerToClientEvents,
} from '@omc/contracts';
import { connectNats, ensureStream, publishEvent, type Nats } from '@omc/service-kit';
import { eventually } from '@omc/testkit';
import type { FastifyInstance } from 'fastify';
import { createServer, connect as netConnect, type AddressInfo, type Socket as NetSocket } from 'node:net';
import { io as connectSocket, type Socket } from 'socket.io-client';
import { buildApp, start, type RealtimeStarted } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createDeps, type Deps } from '../src/deps.js';

export type GameState = EventPayload<typeof SUBJECTS.gameState>;

export interface FakeGame {
  nats: Nats;
  state: GameState;
  /** Sets the state and publishes it as the game does on every change. */
  publish(next: Partial<GameState>): void;
  /** Publishes a round won event on JetStream; returns the event id. */
  win(data: { round: number; username: string; potCents: number }, id?: string): Promise<string>;
  close(): Promise<void>;
}

export async function startFakeGame(natsUrl: string): Promise<FakeGame> {
  const nats = await connectNats(natsUrl, 'test-game');
  // The streams realtime reads (auth's and payments' for the profile stamps), as their owners make them.
  await Promise.all([STREAMS.game, STREAMS.auth, STREAMS.payments].map((s) => ensureStream(nats.jsm, s)));
  const game: FakeGame = {
    nats,
    state: { round: 1, globalClicks: 0, potCents: 0, lastClickUser: null, lastWinner: null, at: Date.now() },
    publish(next) {
      game.state = { ...game.state, ...next, at: Date.now() };
      nats.nc.publish(SUBJECTS.gameState, JSON.stringify(makeEvent(SUBJECTS.gameState, game.state)));
    },
    async win({ round, username, potCents }, id = crypto.randomUUID()) {
      const event = makeEvent(
        SUBJECTS.roundWon,
        {
          round,
          winnerUserId: crypto.randomUUID(),
          winnerUsername: username,
          potCents,
          clicks: 100,
          wonAt: new Date().toISOString(),
        },
        id,
      );
      await publishEvent(nats.js, event);
      return id;
    },
    close: () => nats.close(),
  };
  nats.nc.subscribe(SUBJECTS.gameStateRequest, {
    callback: (_error, msg) => msg.respond(JSON.stringify(makeEvent(SUBJECTS.gameState, game.state))),
  });
  await nats.nc.flush();
  return game;
}

export interface Instance {
  name: string;
  url: string;
  app: FastifyInstance;
  deps: Deps;
  started: RealtimeStarted;
  stop(): Promise<void>;
}

export async function startInstance(name: string, env: Record<string, string>): Promise<Instance> {
  // No drain window unless a test asks for one: closing an instance is immediate.
  const config = loadConfig({ LOG_LEVEL: 'silent', INSTANCE_NAME: name, DRAIN_MS: '0', ...env });
  const deps = await createDeps(config);
  const app = await buildApp(deps, { logger: false });
  const started = await start(app);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let stopped = false;
  return {
    name,
    url: `http://127.0.0.1:${port}`,
    app,
    deps,
    started,
    async stop() {
      if (stopped) return;
      stopped = true;
      await app.close();
      await started.stop();
      await deps.close();
    },
  };
}

export interface Recorder {
  socket: Socket<ServerToClientEvents>;
  states: Parameters<ServerToClientEvents['gameStateUpdate']>[0][];
  winners: Parameters<ServerToClientEvents['winner']>[0][];
  counts: number[];
  /** Profile stamps, one per signed-in connection. */
  stamps: string[];
  /** `move` events heard. */
  moves: number;
  /** Connections made, the first included. */
  connects: number;
  errors: string[];
  lastCount(): number | undefined;
  lastState(): Recorder['states'][number] | undefined;
  close(): void;
}

export function record(
  url: string,
  options: { token?: string; header?: string; reconnection?: boolean; from?: string } = {},
): Recorder {
  const socket: Socket<ServerToClientEvents> = connectSocket(url, {
    ...SOCKET_CLIENT_OPTIONS,
    reconnectionDelay: 100,
    reconnectionDelayMax: 500,
    reconnection: options.reconnection ?? true,
    forceNew: true,
    ...(options.token ? { auth: { token: options.token } } : {}),
    extraHeaders: {
      ...(options.header ? { authorization: options.header } : {}),
      // The client address as the gateway would forward it (the instance trusts loopback).
      ...(options.from ? { 'x-forwarded-for': options.from } : {}),
    },
  });
  const recorder: Recorder = {
    socket,
    states: [],
    winners: [],
    counts: [],
    stamps: [],
    moves: 0,
    connects: 0,
    errors: [],
    lastCount: () => recorder.counts.at(-1),
    lastState: () => recorder.states.at(-1),
    close: () => void socket.close(),
  };
  // Every event is checked against its contract as it arrives: a payload that breaks it fails the run.
  socket.on('gameStateUpdate', (state) => recorder.states.push(SOCKET_EVENTS.gameStateUpdate.parse(state)));
  socket.on('winner', (winner) => recorder.winners.push(SOCKET_EVENTS.winner.parse(winner)));
  socket.on('userCountUpdate', (count) => recorder.counts.push(SOCKET_EVENTS.userCountUpdate.parse(count)));
  socket.on('profileStamp', (stamp) => recorder.stamps.push(SOCKET_EVENTS.profileStamp.parse(stamp)));
  socket.on('move', (event) => {
    SOCKET_EVENTS.move.parse(event);
    recorder.moves += 1;
  });
  socket.on('connect', () => (recorder.connects += 1));
  socket.on('connect_error', (error) => recorder.errors.push(error.message));
  return recorder;
}

export async function connected(...recorders: Recorder[]): Promise<void> {
  await eventually(() => recorders.every((r) => r.socket.connected), 'sockets to connect');
}

/**
 * A stand-in for a load balancer in front of the instances: each new connection goes to the first of
 * `upstreams()` whose /readyz answers 200, as a Kubernetes Service sends only to ready pods.
 */
export async function startReadyBalancer(upstreams: () => string[]): Promise<{ url: string; close(): void }> {
  const isReady = (url: string) =>
    fetch(`${url}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
  const open = new Set<NetSocket>();
  const server = createServer((client) => {
    client.pause();
    open.add(client);
    client.on('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    void (async () => {
      let target: string | undefined;
      for (const url of upstreams()) {
        if (!(await isReady(url))) continue;
        target = url;
        break;
      }
      if (!target || client.destroyed) return void client.destroy();
      const { hostname, port } = new URL(target);
      const upstream = netConnect({ host: hostname, port: Number(port) });
      open.add(upstream);
      const close = () => {
        client.destroy();
        upstream.destroy();
        open.delete(upstream);
      };
      upstream.on('error', close).on('close', close);
      client.on('close', close);
      upstream.pipe(client);
      client.pipe(upstream);
      client.resume();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close() {
      for (const socket of open) socket.destroy();
      server.close();
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The counters a recorder saw, in order. */
export const counters = (r: Recorder) => r.states.map((s) => s.globalClicks);
