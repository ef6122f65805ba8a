// Browsers' live view: Socket.IO clients through the gateway, as the web app connects them.
import { SOCKET_CLIENT_OPTIONS } from '@omc/contracts';
import { io, type Socket } from 'socket.io-client';
import { figures, suite } from './context.js';

export interface Watcher {
  socket: Socket;
  /** Game states received, newest last. */
  states: { at: number; globalClicks: number }[];
  winners: { username: string; pot: number }[];
  connects: number;
  disconnects: number;
  close(): void;
}

export function watch(token?: string): Watcher {
  const socket = io(suite().gatewayUrl, {
    ...SOCKET_CLIENT_OPTIONS,
    // Tests wait for reconnection, so the client retries sooner than a browser would.
    reconnectionDelay: 200,
    reconnectionDelayMax: 1000,
    ...(token ? { auth: { token } } : {}),
    forceNew: true,
  });
  figures.socketsOpened += 1;
  const watcher: Watcher = {
    socket,
    states: [],
    winners: [],
    connects: 0,
    disconnects: 0,
    close: () => socket.close(),
  };
  socket.on('connect', () => (watcher.connects += 1));
  socket.on('disconnect', () => (watcher.disconnects += 1));
  socket.on('gameStateUpdate', (state: { globalClicks: number }) =>
    watcher.states.push({ at: Date.now(), globalClicks: state.globalClicks }),
  );
  socket.on('winner', (event: { username: string; pot: number }) => watcher.winners.push(event));
  return watcher;
}

/** True once the watcher has heard a game state sent after `since` (ms epoch). */
export function heardSince(watcher: Watcher, since: number): boolean {
  return watcher.socket.connected && watcher.states.some((s) => s.at >= since);
}
