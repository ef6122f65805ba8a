// Live updates over Socket.IO (docs/client-contract.md): websocket transport, the reconnection settings of the
// contracts, a fresh state on every (re)connect, sent by the server. The browser only listens.
import { SOCKET_CLIENT_OPTIONS, type ClientToServerEvents, type ServerToClientEvents } from '@omc/contracts';
import { createContext, useContext, useEffect, useRef, type ReactNode, type RefObject } from 'react';
import type { Socket } from 'socket.io-client';
import { useSession } from '../../session/SessionProvider';
import { useLiveConnection } from './useLiveConnection';
import { useLiveState } from './useLiveState';
import { useLiveWinners } from './useLiveWinners';
import { useProfileStamp } from './useProfileStamp';

export type GameSocket = Pick<
  Socket<ServerToClientEvents, ClientToServerEvents>,
  'on' | 'disconnect' | 'connect' | 'active'
>;
/** `token` is read at every (re)connect, so a refreshed token is the one the server sees. */
export type SocketFactory = (token: () => string | null) => GameSocket;

/** One job's listeners on a new socket; what it returns clears that job's timers when the socket goes. */
export type LiveListener = (socket: GameSocket) => (() => void) | void;

type Handler = (...args: never[]) => void;

/**
 * The Socket.IO client loads after the first paint (it is a chunk of its own, outside the first
 * screen's budget): the socket handed out at once keeps the page's listeners and attaches them to the
 * real one when it exists; the state shown meanwhile comes from GET /api/game/state.
 */
const defaultFactory: SocketFactory = (token) => {
  const listeners: [string, Handler][] = [];
  let real: GameSocket | null = null;
  let closed = false;
  void import('socket.io-client').then(({ io }) => {
    if (closed) return;
    const socket = io({
      ...SOCKET_CLIENT_OPTIONS,
      // Every socket hears the whole state; the page itself hides the pot and names from guests.
      auth: (send) => {
        const current = token();
        send(current ? { token: current } : {});
      },
    });
    for (const [event, handler] of listeners)
      (socket.on as (e: string, h: Handler) => unknown)(event, handler);
    real = socket;
  });
  const lazy = {
    on(event: string, handler: Handler) {
      if (real) (real.on as (e: string, h: Handler) => unknown)(event, handler);
      else listeners.push([event, handler]);
      return lazy;
    },
    disconnect() {
      closed = true;
      real?.disconnect();
      return lazy;
    },
    connect() {
      real?.connect();
      return lazy;
    },
    get active() {
      return real ? real.active : !closed;
    },
  };
  return lazy as unknown as GameSocket;
};

const LiveContext = createContext<SocketFactory>(defaultFactory);

export function LiveProvider({ children, factory }: { children: ReactNode; factory?: SocketFactory }) {
  return <LiveContext.Provider value={factory ?? defaultFactory}>{children}</LiveContext.Provider>;
}

export interface LiveGame {
  connected: boolean;
  userCount: number | null;
}

export function useLiveGame(): LiveGame {
  const { token, username } = useSession();
  const tokenRef = useRef(token);
  tokenRef.current = token;
  const connection = useLiveConnection();
  // The profile is read when it can have changed: a (re)connect with a new stamp, a win, and, after the
  // player's own purchase, a pot change; not on every state update (the click's answer carries the balance).
  const state = useLiveState();
  const stamp = useProfileStamp();
  const winners = useLiveWinners(tokenRef, username);
  // A new audience (signed in, signed out, another user) needs a new connection.
  const viewer = token ? `user:${username ?? ''}` : 'guest';
  useGameSocket(viewer, tokenRef, [stamp, connection.listen, state.listen, winners]);
  return { connected: connection.connected, userCount: state.userCount };
}

/**
 * The socket: one per viewer, each job's listeners on it from the start; gone, with the jobs' timers,
 * when the viewer changes or the page closes.
 */
function useGameSocket(viewer: string, tokenRef: RefObject<string | null>, listeners: LiveListener[]): void {
  const factory = useContext(LiveContext);
  useEffect(() => {
    const socket = factory(() => tokenRef.current);
    const stops = listeners.map((listen) => listen(socket));
    return () => {
      for (const stop of stops) stop?.();
      socket.disconnect();
    };
    // Each listener changes only with what it reads (the query client, the username).
  }, [factory, viewer, tokenRef, ...listeners]);
}
