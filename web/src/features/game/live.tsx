// Live updates over Socket.IO (docs/client-contract.md): websocket transport, the reconnection settings of the
// contracts, a fresh state on every (re)connect, sent by the server. The browser only listens.
import {
  GameStateUpdate,
  ProfileStamp,
  SOCKET_CLIENT_OPTIONS,
  UserCountUpdate,
  WinnerEvent,
  type ClientToServerEvents,
  type GameState,
  type ProfileResponse,
  type ServerToClientEvents,
} from '@omc/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useRef, useState, type ReactNode } from 'react';
import type { Socket } from 'socket.io-client';
import { useTranslation } from 'react-i18next';
import { markServerData } from '../../api/generations';
import { queryKeys } from '../../api/keys';
import { awaitingPurchase, awaitingWinnings, firstSightOfOwnWin } from '../../api/purchaseWatch';
import { formatMoney } from '../../i18n/format';
import { useNotices } from '../../components/Notices';
import { useSession } from '../../session/SessionProvider';

export type GameSocket = Pick<
  Socket<ServerToClientEvents, ClientToServerEvents>,
  'on' | 'disconnect' | 'connect' | 'active'
>;
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

const RETRY_REFUSED_MS = 2000;

const LiveContext = createContext<SocketFactory>(defaultFactory);

export function LiveProvider({ children, factory }: { children: ReactNode; factory?: SocketFactory }) {
  return <LiveContext.Provider value={factory ?? defaultFactory}>{children}</LiveContext.Provider>;
}

const PROFILE_RELOAD_MS = 1000;
/** After `move`, the page keeps showing itself connected this long while the socket finds another server. */
const MOVE_GRACE_MS = 5000;

export interface LiveGame {
  connected: boolean;
  userCount: number | null;
}

export function useLiveGame(): LiveGame {
  const factory = useContext(LiveContext);
  const queryClient = useQueryClient();
  const { notify } = useNotices();
  const { token, username } = useSession();
  const tokenRef = useRef(token);
  tokenRef.current = token;
  // A new audience (signed in, signed out, another user) needs a new connection.
  const viewer = token ? `user:${username ?? ''}` : 'guest';
  const { i18n } = useTranslation();
  const languageRef = useRef(i18n.language);
  languageRef.current = i18n.language;
  const notifyRef = useRef(notify);
  notifyRef.current = notify;
  const [connected, setConnected] = useState(false);
  const [userCount, setUserCount] = useState<number | null>(null);

  useEffect(() => {
    const socket = factory(() => tokenRef.current);
    let retry: ReturnType<typeof setTimeout> | null = null;
    // The profile is read when it can have changed: a (re)connect, a win, and, after the player's own
    // purchase, a pot change (the purchase reaching the game), at most once a second. Not on every state
    // update: the click's answer carries the clicker's balance.
    let lastPot: number | null = null;
    let profileTimer: ReturnType<typeof setTimeout> | null = null;
    let winningsPoll: ReturnType<typeof setInterval> | null = null;
    const reloadProfile = () => {
      if (profileTimer) return;
      profileTimer = setTimeout(() => {
        profileTimer = null;
        void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
      }, PROFILE_RELOAD_MS);
    };

    // A reconnect costs the servers no HTTP read: the server sends the state with every connection, and
    // to a signed-in socket the profile's stamp, which changes whenever something of the player's did.
    // The profile is read again only when the stamp differs from the one the last connection brought.
    let knownStamp: string | null = null;
    socket.on('profileStamp', (payload) => {
      const stamp = ProfileStamp.safeParse(payload);
      if (!stamp.success) return;
      if (knownStamp !== null && stamp.data !== knownStamp)
        void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
      knownStamp = stamp.data;
    });
    // A server going away (a rollout) says `move` before it closes the connection: the socket reconnects
    // to another server by itself, and the page does not show itself disconnected meanwhile.
    let moving: ReturnType<typeof setTimeout> | null = null;
    let up = false;
    const endMove = () => {
      if (moving) clearTimeout(moving);
      moving = null;
    };
    socket.on('move', () => {
      endMove();
      moving = setTimeout(() => {
        moving = null;
        if (!up) setConnected(false);
      }, MOVE_GRACE_MS);
    });
    socket.on('connect', () => {
      up = true;
      endMove();
      setConnected(true);
    });
    socket.on('disconnect', () => {
      up = false;
      if (!moving) setConnected(false);
    });
    // A refused handshake (an expired token, say) is not retried by the client itself.
    socket.on('connect_error', () => {
      if (socket.active || retry) return;
      retry = setTimeout(() => {
        retry = null;
        socket.connect();
      }, RETRY_REFUSED_MS);
    });
    socket.on('gameStateUpdate', (payload) => {
      const state = GameStateUpdate.safeParse(payload);
      if (!state.success) return console.warn('ignored a malformed gameStateUpdate', state.error);
      markServerData('gameState');
      queryClient.setQueryData<GameState>(queryKeys.gameState, state.data);
      if (lastPot !== null && state.data.pot !== lastPot && awaitingPurchase()) reloadProfile();
      lastPot = state.data.pot;
    });
    socket.on('winner', (payload) => {
      const winner = WinnerEvent.safeParse(payload);
      if (!winner.success) return console.warn('ignored a malformed winner event', winner.error);
      notifyRef.current({
        tone: 'winner',
        key: 'game.winnerAlert',
        values: { username: winner.data.username, pot: formatMoney(winner.data.pot, languageRef.current) },
      });
      void queryClient.invalidateQueries({ queryKey: queryKeys.winners });
      const own = Boolean(tokenRef.current) && winner.data.username === username;
      const profile = own
        ? queryClient.getQueryData<ProfileResponse>(queryKeys.profile(tokenRef.current))
        : undefined;
      // The round's end changes every player's profile (this round's purchases expire); the player's own
      // win is read once, here or by its click's answer if that came first (purchaseWatch.ts).
      if (!own || firstSightOfOwnWin('event', profile?.potEarned))
        void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
      // The player's own win: its credit may land after the read, so read again until it shows.
      if (own) {
        winningsPoll ??= setInterval(() => {
          if (awaitingWinnings())
            return void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
          if (winningsPoll) clearInterval(winningsPoll);
          winningsPoll = null;
        }, PROFILE_RELOAD_MS);
      }
    });
    socket.on('userCountUpdate', (payload) => {
      const count = UserCountUpdate.safeParse(payload);
      if (count.success) setUserCount(count.data);
    });
    return () => {
      if (profileTimer) clearTimeout(profileTimer);
      if (winningsPoll) clearInterval(winningsPoll);
      if (retry) clearTimeout(retry);
      endMove();
      socket.disconnect();
    };
  }, [factory, queryClient, viewer, username]);

  return { connected, userCount };
}
