// Socket.IO for every player: the game state as the game publishes it (at most one a period, sent on as
// it arrives: state-pace.ts), each round's winner, and the number of connected users. Each instance hears
// the game itself (NATS) and emits only to its own sockets, each payload encoded once per send per
// audience and everything a send carries written to a socket at once; the Redis adapter joins the
// instances into one audience for any server-wide broadcast. This file wires the parts, each in a file
// named for its job: the per-address cap (address-cap.ts), presence (presence.ts), the feeds
// (state-feed.ts, winners-feed.ts), the profile stamps (profile-stamps.ts), the fan-out (broadcast.ts),
// the drain on shutdown (drain.ts) and the metrics (live-metrics.ts).
import {
  centsToEuros,
  SOCKET_PATH,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from '@omc/contracts';
import { createAdapter, createShardedAdapter } from '@socket.io/redis-adapter';
import type { FastifyInstance } from 'fastify';
import { Server, type Socket } from 'socket.io';
import { compileTrust } from '@omc/service-kit';
import type { Deps } from '../deps.js';
import { createAddressCap, TooManyConnections } from './address-cap.js';
import { EVERYONE, startBroadcast } from './broadcast.js';
import { drainSockets, moveSocket } from './drain.js';
import { LatestState, stateView } from './game-state.js';
import { createLiveMetrics } from './live-metrics.js';
import { startPresence } from './presence.js';
import { startProfileStamps } from './profile-stamps.js';
import { watchEndedSessionSockets } from './ended-session-sockets.js';
import { createViewerResolver, HandshakeRefused, type Viewer } from './socket-auth.js';
import { startStateFeed } from './state-feed.js';
import { startWinnersFeed } from './winners-feed.js';

interface SocketData {
  viewer: Viewer;
  address: string;
}

type LiveSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
type LiveIo = Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

export interface Live {
  io: LiveIo;
  /** Resolves once round won events are being consumed. */
  winnersReady: Promise<void>;
  /**
   * Moves every socket to another instance within DRAIN_MS and stops the feeds and ticks; run before the
   * listener closes (Fastify's preClose), while Fastify answers 503 to everyone new.
   */
  close(): Promise<void>;
}

/** The Redis adapter (docs/decisions.md): classic pub/sub, or Redis 7's sharded pub/sub. */
function adapterFor(deps: Deps) {
  return deps.config.SOCKET_ADAPTER === 'sharded'
    ? createShardedAdapter(deps.adapterPub, deps.adapterSub, { channelPrefix: 'omc:socket.io' })
    : createAdapter(deps.adapterPub, deps.adapterSub, { key: 'omc:socket.io' });
}

export async function attachLive(app: FastifyInstance, deps: Deps): Promise<Live> {
  const { config, log, clock } = deps;
  const endedSessions = watchEndedSessionSockets(deps, { blindAfterMs: config.ENDED_SESSIONS_BLIND_MS });
  const resolveViewer = await createViewerResolver(config.JWT_PUBLIC_KEY, endedSessions.refusal);
  // Read at each scrape, once `live` exists.
  const metrics = createLiveMetrics(deps.metrics, () => live.of('/').sockets.size);
  const cap = createAddressCap({
    cap: config.WS_MAX_PER_IP,
    leaseMs: config.WS_LEASE_MS,
    instance: config.INSTANCE_NAME,
    redis: deps.redis,
    trusted: compileTrust(config.TRUST_PROXY),
    refused: metrics.refused,
  });
  const live: LiveIo = new Server(app.server, {
    path: SOCKET_PATH,
    transports: ['websocket'],
    serveClient: false,
    // Browsers send nothing (docs/client-contract.md): a tiny frame limit.
    maxHttpBufferSize: 4 * 1024,
    adapter: adapterFor(deps),
    // A hard stop for connections that never finish the handshake: twice the cap, refused with HTTP 400
    // and the reason; below it the Socket.IO middleware refuses with a reason the client can show.
    allowRequest: cap.allowRequest,
  });
  live.engine.on('connection', cap.countEngine);
  endedSessions.attach(live.of('/'));

  const presence = startPresence(deps, metrics.users);
  const latest = new LatestState();
  const broadcast = startBroadcast({
    room: live.of('/'),
    latest,
    presence,
    metrics,
    clock,
    hz: config.BROADCAST_HZ,
  });
  const onResult = (subject: string, outcome: string) => metrics.consumed.inc({ subject, outcome });
  const stateFeed = startStateFeed({
    nats: deps.nats,
    log,
    onState: (s) => {
      if (latest.offerUnchecked(s)) broadcast.stateArrived();
    },
    onResult,
  });
  const winnersFeed = startWinnersFeed({
    nats: deps.nats,
    log,
    onResult,
    onWinner: (won) =>
      broadcast.toEveryone([['winner', { username: won.winnerUsername, pot: centsToEuros(won.potCents) }]]),
  });
  const stamps = startProfileStamps({ nats: deps.nats, redis: deps.redis, log, consumed: metrics.consumed });

  live.use((socket, next) => {
    cap
      .admit(socket)
      .then((address) => {
        socket.data.address = address;
        return resolveViewer(socket.handshake);
      })
      .then((viewer) => {
        socket.data.viewer = viewer;
        next();
      })
      .catch((error: unknown) =>
        next(
          error instanceof HandshakeRefused || error instanceof TooManyConnections
            ? error
            : new Error('Invalid token'),
        ),
      );
  });

  live.on('connection', (socket: LiveSocket) => {
    const { viewer, address } = socket.data;
    const leave = presence.join(viewer, address);
    void socket.join(EVERYONE);
    // What a returning client needs, at once: the state, the count, and (signed in) the profile stamp.
    const state = latest.current;
    if (state) socket.emit('gameStateUpdate', stateView(state));
    socket.emit('userCountUpdate', presence.count.total);
    if (viewer.kind === 'user')
      void stamps.stamp(viewer.claims.sub, state?.round ?? 0).then((stamp) => {
        if (socket.connected) socket.emit('profileStamp', stamp);
      });
    socket.on('disconnect', (reason) => {
      metrics.disconnects.inc({ reason });
      leave();
    });
  });

  const close = async () => {
    // Fastify answers 503 to every request from here on (/readyz included): no one new is sent here.
    await drainSockets(app.server, live.of('/'), { windowMs: config.DRAIN_MS, moved: metrics.moved });
    broadcast.stop();
    await Promise.all([
      stateFeed.stop(),
      winnersFeed.stop(),
      presence.stop(),
      stamps.stop(),
      endedSessions.stop(),
    ]);
    // Any socket still here (the window ran out) is moved as well: a server-side disconnect would tell
    // its client not to come back.
    for (const socket of live.of('/').sockets.values()) moveSocket(socket);
    await cap.close();
    live.engine.close();
    await Promise.resolve(live.of('/').adapter.close()).catch(() => undefined);
  };

  return { io: live, winnersReady: winnersFeed.ready, close };
}
