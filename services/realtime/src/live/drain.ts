// A graceful stop that moves the crowd instead of dropping it: once the instance is closing (its /readyz
// already answers 503, so the load balancer sends no one new), every new websocket upgrade is refused
// with a 503, and the sockets it holds are told to move (`move`) and closed in slices spread over the
// first three quarters of the drain window, so they reconnect to other instances a few at a time rather
// than all in the same second; one that finishes its handshake meanwhile is moved as it arrives. The
// drain ends when the last socket is gone or the window is over.
import type { Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Namespace, Socket } from 'socket.io';
import type { LiveMetrics } from './live-metrics.js';

/** Sockets are moved this often during the window. */
export const DRAIN_SLICE_MS = 250;

const REFUSED_UPGRADE =
  'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 1\r\nContent-Length: 0\r\n\r\n';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Refuses every websocket upgrade from now on: the instance takes no new sockets. */
export function refuseUpgrades(server: HttpServer): void {
  server.removeAllListeners('upgrade');
  server.on('upgrade', (_request, socket: Duplex) => {
    socket.on('error', () => socket.destroy());
    socket.end(REFUSED_UPGRADE);
  });
}

/** How many sockets of `left` to move in this slice, with `slicesLeft` slices to go. */
export function sliceSize(left: number, slicesLeft: number): number {
  return slicesLeft <= 1 ? left : Math.ceil(left / slicesLeft);
}

/** Tells a socket to move and closes its transport, so its client reconnects to another instance. */
export function moveSocket(socket: Socket): void {
  socket.emit('move', {});
  // Closing the transport (not a server-side disconnect, which a client obeys by staying away) makes any
  // Socket.IO client reconnect by itself; the close waits for the `move` frame to be written.
  socket.conn.close();
}

export async function drainSockets(
  server: HttpServer,
  room: Namespace,
  options: { windowMs: number; moved: LiveMetrics['moved'] },
): Promise<void> {
  refuseUpgrades(server);
  const deadline = Date.now() + options.windowMs;
  let slicesLeft = Math.max(1, Math.floor((options.windowMs * 3) / 4 / DRAIN_SLICE_MS));
  // A socket whose handshake was under way when the drain began joins the room later: each slice takes
  // whoever is in the room and not yet told, so a late one is moved too, never left to be cut off.
  const told = new WeakSet<Socket>();
  const untold = () => [...room.sockets.values()].filter((socket) => !told.has(socket));
  const move = (socket: Socket) => {
    told.add(socket);
    if (!socket.connected) return;
    moveSocket(socket);
    options.moved.inc();
  };
  while (untold().length > 0) {
    // The first slice waits too: the load balancer has a moment to see /readyz fail.
    if (options.windowMs > 0) await sleep(DRAIN_SLICE_MS);
    const waiting = untold();
    for (const socket of waiting.slice(0, sliceSize(waiting.length, slicesLeft))) move(socket);
    slicesLeft = Math.max(1, slicesLeft - 1);
  }
  while (room.sockets.size > 0 && Date.now() < deadline) {
    await sleep(50);
    for (const socket of untold()) move(socket);
  }
}
