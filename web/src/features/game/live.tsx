// Live updates over Socket.IO (docs/client-contract.md): websocket transport, the reconnection settings of the
// contracts, a fresh state on every (re)connect, sent by the server. The browser only listens.
import { SOCKET_CLIENT_OPTIONS } from '@omc/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import { useSession } from '../../session/SessionProvider';
import type { GameSocket } from './gameSocket';
import { followConnection } from './liveConnection';
import { followState } from './liveState';
import { followWinners, useWinnerNotice } from './liveWinners';
import { followProfileStamp } from './profileStamp';

export type { GameSocket } from './gameSocket';
/** `token` is read at every (re)connect, so a refreshed token is the one the server sees. */
export type SocketFactory = (token: () => string | null) => GameSocket;

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
  const factory = useContext(LiveContext);
  const queryClient = useQueryClient();
  const { token, username } = useSession();
  const tokenRef = useRef(token);
  tokenRef.current = token;
  // A new audience (signed in, signed out, another user) needs a new connection.
  const viewer = token ? `user:${username ?? ''}` : 'guest';
  const announce = useWinnerNotice();
  const [connected, setConnected] = useState(false);
  const [userCount, setUserCount] = useState<number | null>(null);

  // One socket per viewer, each job's listeners on it from the start. The profile is read when it can
  // have changed: a (re)connect with a new stamp, a win, and, after the player's own purchase, a pot
  // change; not on every state update (the click's answer carries the clicker's balance).
  useEffect(() => {
    const socket = factory(() => tokenRef.current);
    followProfileStamp(socket, queryClient);
    const stops = [
      followConnection(socket, setConnected),
      followState(socket, queryClient, setUserCount),
      followWinners(socket, queryClient, announce, tokenRef, username),
    ];
    return () => {
      for (const stop of stops) stop();
      socket.disconnect();
    };
  }, [factory, queryClient, viewer, username, announce]);

  return { connected, userCount };
}
