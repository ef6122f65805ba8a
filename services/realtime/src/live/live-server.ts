// Socket.IO for every player: the game state at a fixed tick, each round's winner, and the number of
// connected users. Each instance hears the game itself (NATS) and emits only to its own sockets, each
// payload encoded once per tick per audience and everything a tick carries written to a socket at once;
// the Redis adapter joins the instances into one audience for any server-wide broadcast.
import {
  centsToEuros,
  SOCKET_PATH,
  type ClientToServerEvents,
  type ServerToClientEvents,
} from '@omc/contracts';
import { createAdapter } from '@socket.io/redis-adapter';
import type { FastifyInstance } from 'fastify';
import { Server, type Socket } from 'socket.io';
import { AddressLeases, compileTrust } from '@omc/service-kit';
import type { Deps } from '../deps.js';
import { startUserCount } from '../presence/user-count.js';
import { clientAddress, Tally } from './connection-caps.js';
import { LatestState, stateView } from './game-state.js';
import { watchEndedSessionSockets } from './ended-session-sockets.js';
import { createViewerResolver, HandshakeRefused, type Viewer } from './socket-auth.js';
import { writeEventsToRoom, type RoomEvent } from './room-writer.js';
import { startStateFeed } from './state-feed.js';
import { startWinnersFeed } from './winners-feed.js';

interface SocketData {
  viewer: Viewer;
  address: string;
}

type LiveSocket = Socket<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;

/** Every socket gets the whole state (docs/client-contract.md): what a guest may not see, the interface hides. */
const EVERYONE = 'everyone';

export interface Live {
  io: Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>;
  /** Resolves once round won events are being consumed. */
  winnersReady: Promise<void>;
}

export async function attachLive(app: FastifyInstance, deps: Deps): Promise<Live> {
  const { config, log, metrics, clock } = deps;
  const endedSessions = watchEndedSessionSockets(deps);
  const resolveViewer = await createViewerResolver(config.JWT_PUBLIC_KEY, endedSessions.refusal);
  const trusted = compileTrust(config.TRUST_PROXY);
  const cap = config.WS_MAX_PER_IP;
  /** Engine connections per address, whether or not they finished the Socket.IO handshake. */
  const engineConnections = new Tally();
  /** Socket.IO connections per address: the cap a client is told about. */
  const socketsByAddress = new Tally();
  /** People on this instance: one per signed-in user, one per address for sockets without a token. */
  const people = new Tally();
  const tooMany = `Too many connections from your address (at most ${cap})`;
  /** The cap across every instance: a lease per socket in Redis (the local tally holds while Redis is away). */
  const leases = cap > 0 ? new AddressLeases(deps.redis, cap, config.WS_LEASE_MS) : undefined;

  const io = new Server<ClientToServerEvents, ServerToClientEvents, Record<string, never>, SocketData>(
    app.server,
    {
      path: SOCKET_PATH,
      transports: ['websocket'],
      serveClient: false,
      // Browsers send nothing (docs/client-contract.md): a tiny frame limit.
      maxHttpBufferSize: 4 * 1024,
      adapter: createAdapter(deps.adapterPub, deps.adapterSub, { key: 'omc:socket.io' }),
      // A hard stop for connections that never finish the handshake: twice the cap, refused with HTTP 400
      // and the reason; below it the Socket.IO middleware refuses with a reason the client can show.
      allowRequest: (request, callback) => {
        const refused = cap > 0 && engineConnections.count(clientAddress(request, trusted)) >= 2 * cap;
        if (refused) refusedCount.inc({ where: 'engine' });
        callback(refused ? tooMany : null, !refused);
      },
    },
  );
  endedSessions.attach(io.of('/'));
  const sockets = () => io.of('/').sockets.size;
  const roomSize = (room: string) => io.of('/').adapter.rooms.get(room)?.size ?? 0;
  const refusedCount = metrics.counter(
    'realtime_connections_refused_total',
    'Connections refused because their address holds WS_MAX_PER_IP already, by where',
    ['where'],
  );
  io.engine.on(
    'connection',
    (conn: { request: Parameters<typeof clientAddress>[0]; once: (e: string, f: () => void) => void }) => {
      const address = clientAddress(conn.request, trusted);
      engineConnections.add(address);
      conn.once('close', () => engineConnections.remove(address));
    },
  );

  const emitted = metrics.counter(
    'realtime_messages_emitted_total',
    'Messages written to sockets, by event',
    ['event'],
  );
  const writes = metrics.counter(
    'realtime_state_writes_total',
    'Writes of a tick (state, user count) or winner to sockets: directly as one pre-encoded buffer, or through Socket.IO',
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
  const tickWrite = metrics.histogram(
    'realtime_tick_write_seconds',
    "Wall time of one tick's (or winner's) writes to this instance's sockets: what the last socket waits after the first",
    [],
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1],
  );
  metrics.gauge('realtime_sockets_connected', 'Sockets connected to this instance', [], function collect() {
    this.set(sockets());
  });
  const disconnects = metrics.counter(
    'realtime_disconnects_total',
    "Sockets that left this instance, by Socket.IO's reason (client namespace disconnect, transport close, ping timeout, server shutting down...)",
    ['reason'],
  );
  const usersGauge = metrics.gauge(
    'realtime_users_connected',
    'People connected across all instances (users, plus addresses without a token), as this instance last counted',
  );

  /** The user count to send with the next tick, if any: counts ride along with the state, in one write. */
  let countDue: number | null = null;
  const userCount = startUserCount({
    redis: deps.redis,
    subscriber: deps.countSub,
    instance: config.INSTANCE_NAME,
    log,
    localCount: () => people.size,
    onTotal: (total) => {
      usersGauge.set(total);
      countDue = total;
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
      emitted.inc({ event: 'winner' }, roomSize(EVERYONE));
      const winner = { username: won.winnerUsername, pot: centsToEuros(won.potCents) };
      writeToEveryone([['winner', winner]]);
    },
  });

  io.use((socket, next) => {
    // Counted before anything asynchronous, so concurrent handshakes cannot pass the cap together.
    const address = clientAddress(socket.conn.request, trusted);
    if (cap > 0 && socketsByAddress.count(address) >= cap) {
      refusedCount.inc({ where: 'handshake' });
      const error = new Error(tooMany) as Error & { data?: unknown };
      error.data = { message: tooMany, error: tooMany, msg: tooMany };
      return next(error);
    }
    socketsByAddress.add(address);
    socket.conn.once('close', () => socketsByAddress.remove(address));
    socket.data.address = address;
    const member = `${config.INSTANCE_NAME}:${socket.id}`;
    const leased = leases
      ? leases.acquire(address, member).then(
          (ok) => {
            socket.conn.once('close', () => leases.release(member));
            return ok;
          },
          // Redis away: this instance's own count is the cap until it is back.
          () => true,
        )
      : Promise.resolve(true);
    leased
      .then((ok) => {
        if (!ok) {
          refusedCount.inc({ where: 'instances' });
          throw Object.assign(new Error(tooMany), {
            data: { message: tooMany, error: tooMany, msg: tooMany },
          });
        }
        return resolveViewer(socket.handshake);
      })
      .then((viewer) => {
        socket.data.viewer = viewer;
        next();
      })
      .catch((error: unknown) =>
        next(
          error instanceof HandshakeRefused || (error as Error).message === tooMany
            ? (error as Error)
            : new Error('Invalid token'),
        ),
      );
  });

  io.on('connection', (socket: LiveSocket) => {
    const viewer = socket.data.viewer;
    const person = viewer.kind === 'user' ? `user:${viewer.claims.sub}` : `address:${socket.data.address}`;
    people.add(person);
    void socket.join(EVERYONE);
    // The current state and count at once, not at the next change.
    const state = latest.current;
    if (state) socket.emit('gameStateUpdate', stateView(state));
    socket.emit('userCountUpdate', userCount.total);
    userCount.markChanged();
    socket.on('disconnect', (reason) => {
      disconnects.inc({ reason });
      people.remove(person);
      userCount.markChanged();
    });
  });

  /** Writes `events` to every local socket, timed and counted by path. */
  const writeToEveryone = (events: RoomEvent[]) => {
    const started = performance.now();
    const written = writeEventsToRoom(io.of('/'), EVERYONE, events);
    tickWrite.observe((performance.now() - started) / 1000);
    if (written.direct > 0) writes.inc({ path: 'direct' }, written.direct);
    if (written.fallback > 0) writes.inc({ path: 'fallback' }, written.fallback);
  };

  // One tick: at most one state per audience, only if it changed, and the user count if it is due,
  // encoded once for all local sockets and written to each socket in one write.
  const tick = () => {
    const events: RoomEvent[] = [];
    const state = latest.takeChanged();
    if (state) {
      lag.observe(Math.max(0, clock() - state.at) / 1000);
      events.push(['gameStateUpdate', stateView(state)]);
    }
    if (countDue !== null) {
      events.push(['userCountUpdate', countDue]);
      countDue = null;
    }
    if (events.length > 0) {
      const audience = roomSize(EVERYONE);
      for (const [event] of events) emitted.inc({ event }, audience);
      writeToEveryone(events);
    }
    void userCount.flush();
  };
  const ticker = setInterval(tick, Math.round(1000 / config.BROADCAST_HZ));
  // The count again at a slow pace, with the next tick: a client that attached its listener after
  // connecting still gets it.
  const resend = setInterval(() => {
    countDue = userCount.total;
  }, config.USER_COUNT_RESEND_MS);

  app.addHook('preClose', async () => {
    clearInterval(ticker);
    clearInterval(resend);
    await Promise.all([stateFeed.stop(), winnersFeed.stop(), userCount.stop(), endedSessions.stop()]);
    io.local.disconnectSockets(true);
    await leases?.close();
    io.engine.close();
    await Promise.resolve(io.of('/').adapter.close()).catch(() => undefined);
  });

  return { io, winnersReady: winnersFeed.ready };
}
