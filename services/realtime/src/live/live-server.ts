// Socket.IO for everyone: the whole game state at a fixed tick, each round's winner, and the number of
// connected users, the same to every socket with or without a token (what a guest may not see is hidden
// by the interface, SPEC section 1). Each instance hears the game itself (NATS) and emits only to its
// own sockets, each payload encoded once per tick; the Redis adapter joins the instances into one
// audience for any server-wide broadcast.
import {
  centsToEuros,
  SOCKET_PATH,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from '@omc/contracts';
import { createAdapter } from '@socket.io/redis-adapter';
import type { FastifyInstance } from 'fastify';
import { Server, type Socket } from 'socket.io';
import type { Deps } from '../deps.js';
import { startUserCount } from '../presence/user-count.js';
import { LatestState, stateView } from './game-state.js';
import { createViewerResolver, HandshakeRefused, type Viewer } from './socket-auth.js';
import { writeToRoom } from './room-writer.js';
import { startStateFeed } from './state-feed.js';
import { startWinnersFeed } from './winners-feed.js';

interface SocketData {
  viewer: Viewer;
}

type LiveSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/** Every socket hears the state; one room so a tick encodes it once. */
const AUDIENCE = 'everyone';

export interface Live {
  io: Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
  /** Resolves once round won events are being consumed. */
  winnersReady: Promise<void>;
}

export async function attachLive(app: FastifyInstance, deps: Deps): Promise<Live> {
  const { config, log, metrics, clock } = deps;
  const resolveViewer = await createViewerResolver(config.JWT_PUBLIC_KEY);

  const io = new Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>(
    app.server,
    {
      path: SOCKET_PATH,
      transports: ['websocket'],
      serveClient: false,
      // Browsers send nothing (SPEC section 4): a tiny frame limit.
      maxHttpBufferSize: 4 * 1024,
      adapter: createAdapter(deps.adapterPub, deps.adapterSub, { key: 'omc:socket.io' }),
    },
  );
  const sockets = () => io.of('/').sockets.size;
  const roomSize = (room: string) => io.of('/').adapter.rooms.get(room)?.size ?? 0;

  const emitted = metrics.counter(
    'realtime_messages_emitted_total',
    'Messages written to sockets, by event',
    ['event'],
  );
  const writes = metrics.counter(
    'realtime_state_writes_total',
    'Game state updates written to sockets: directly as one pre-encoded frame, or through Socket.IO',
    ['path'],
  );
  const consumed = metrics.counter(
    'realtime_events_consumed_total',
    'NATS messages consumed, by subject and outcome',
    ['subject', 'outcome'],
  );
  const lag = metrics.histogram(
    'realtime_broadcast_lag_seconds',
    'From the game producing a state to its broadcast',
    [],
    [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5],
  );
  metrics.gauge('realtime_sockets_connected', 'Sockets connected to this instance', [], function collect() {
    this.set(sockets());
  });
  const usersGauge = metrics.gauge(
    'realtime_users_connected',
    'Sockets connected across all instances, as this instance last counted',
  );

  const userCount = startUserCount({
    redis: deps.redis,
    subscriber: deps.countSub,
    instance: config.INSTANCE_NAME,
    log,
    localCount: sockets,
    onTotal: (total) => {
      usersGauge.set(total);
      emitted.inc({ event: 'userCountUpdate' }, sockets());
      io.local.emit('userCountUpdate', total);
    },
  });

  const latest = new LatestState();
  const stateFeed = startStateFeed({
    nats: deps.nats,
    log,
    onState: (state) => void latest.offer(state),
    onResult: (subject, outcome) => consumed.inc({ subject, outcome }),
  });
  const winnersFeed = startWinnersFeed({
    nats: deps.nats,
    log,
    onResult: (subject, outcome) => consumed.inc({ subject, outcome }),
    onWinner: (won) => {
      emitted.inc({ event: 'winner' }, sockets());
      io.local.emit('winner', { username: won.winnerUsername, pot: centsToEuros(won.potCents) });
    },
  });

  io.use((socket, next) => {
    resolveViewer(socket.handshake)
      .then((viewer) => {
        socket.data.viewer = viewer;
        next();
      })
      .catch((error: unknown) =>
        next(error instanceof HandshakeRefused ? error : new Error('Invalid token')),
      );
  });

  io.on('connection', (socket: LiveSocket) => {
    void socket.join(AUDIENCE);
    // The current state and count at once, not at the next change.
    const state = latest.current;
    if (state) socket.emit('gameStateUpdate', stateView(state));
    socket.emit('userCountUpdate', userCount.total);
    userCount.markChanged();
    socket.on('disconnect', () => userCount.markChanged());
  });

  // One tick: at most one state, only if it changed, encoded once for all local sockets.
  const tick = () => {
    const state = latest.takeChanged();
    if (state) {
      lag.observe(Math.max(0, clock() - state.at) / 1000);
      emitted.inc({ event: 'gameStateUpdate' }, roomSize(AUDIENCE));
      const written = writeToRoom(io.of('/'), AUDIENCE, 'gameStateUpdate', stateView(state));
      writes.inc({ path: 'direct' }, written.direct);
      writes.inc({ path: 'fallback' }, written.fallback);
    }
    void userCount.flush();
  };
  const ticker = setInterval(tick, Math.round(1000 / config.BROADCAST_HZ));
  // The count again at a slow, steady pace, for a listener attached after the connect-time one.
  const countRepeater = setInterval(() => {
    emitted.inc({ event: 'userCountUpdate' }, sockets());
    io.local.emit('userCountUpdate', userCount.total);
  }, config.USER_COUNT_REPEAT_MS);

  app.addHook('preClose', async () => {
    clearInterval(ticker);
    clearInterval(countRepeater);
    await Promise.all([stateFeed.stop(), winnersFeed.stop(), userCount.stop()]);
    io.local.disconnectSockets(true);
    io.engine.close();
    await Promise.resolve(io.of('/').adapter.close()).catch(() => undefined);
  });

  return { io, winnersReady: winnersFeed.ready };
}
