// A graceful stop that moves the crowd instead of dropping it: once the instance is closing (its /readyz
// already answers 503, so the load balancer sends no one new), every new websocket upgrade is refused
// with a 503, and the sockets it holds are told to move (`move`) and closed in slices spread over the
// first three quarters of the drain window, so they reconnect to other instances a few at a time rather
// than all in the same second. The drain ends when the last socket is gone or the window is over.
import type { Server as HttpServer } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Namespace } from 'socket.io';
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

export async function drainSockets(
  server: HttpServer,
  room: Namespace,
  options: { windowMs: number; moved: LiveMetrics['moved'] },
): Promise<void> {
  refuseUpgrades(server);
  const deadline = Date.now() + options.windowMs;
  let slicesLeft = Math.max(1, Math.floor((options.windowMs * 3) / 4 / DRAIN_SLICE_MS));
  const waiting = [...room.sockets.values()];
  while (waiting.length > 0) {
    // The first slice waits too: the load balancer has a moment to see /readyz fail.
    if (options.windowMs > 0) await sleep(DRAIN_SLICE_MS);
    for (const socket of waiting.splice(0, sliceSize(waiting.length, slicesLeft))) {
      if (!socket.connected) continue;
      socket.emit('move', {});
      // Closing the transport (not a server-side disconnect) makes any Socket.IO client reconnect by
      // itself; the close waits for the `move` frame to be written.
      socket.conn.close();
      options.moved.inc();
    }
    slicesLeft = Math.max(1, slicesLeft - 1);
  }
  while (room.sockets.size > 0 && Date.now() < deadline) await sleep(50);
}
