import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { drainSockets } from './drain.js';

const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A Socket.IO server whose handshakes, once `hold()` is called, wait until `release()`. */
async function server() {
  const http = createServer();
  const io = new Server(http, { transports: ['websocket'] });
  let release: (() => void) | undefined;
  const waiting: (() => void)[] = [];
  io.use((_socket, next) => {
    if (!release) return next();
    waiting.push(() => next());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise((resolve) => io.close(() => resolve(undefined))));
  return {
    io,
    http,
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    hold: () => (release = () => waiting.splice(0).forEach((next) => next())),
    release: () => release?.(),
    inHandshake: () => waiting.length,
  };
}

/** A client that records what it was told and why it was disconnected (no reconnection of its own). */
function client(url: string) {
  const socket: ClientSocket = connect(url, {
    transports: ['websocket'],
    reconnection: false,
    forceNew: true,
  });
  cleanups.push(() => socket.close());
  const seen = { moved: 0, reasons: [] as string[] };
  socket.on('move', () => (seen.moved += 1));
  socket.on('disconnect', (reason) => seen.reasons.push(reason));
  return { socket, seen };
}

const until = async (condition: () => boolean) => {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
};
const metric = () => {
  let count = 0;
  const counter = { inc: () => void (count += 1) } as Parameters<typeof drainSockets>[2]['moved'];
  return { counter, count: () => count };
};

describe('the drain', () => {
  it('moves every socket, one whose handshake finished after the drain began included, by closing its transport', async () => {
    const s = await server();
    const early = client(s.url);
    await until(() => early.socket.connected);
    s.hold();
    const late = client(s.url);
    await until(() => s.inHandshake() === 1);

    const moved = metric();
    const drained = drainSockets(s.http, s.io.of('/'), { windowMs: 2000, moved: moved.counter });
    s.release();
    await drained;
    await until(() => early.seen.reasons.length > 0 && late.seen.reasons.length > 0);

    for (const { seen } of [early, late]) {
      expect(seen.moved).toBe(1);
      // "transport close" is the reason a Socket.IO client reconnects on; "io server disconnect" is not.
      expect(seen.reasons).toEqual(['transport close']);
    }
    expect(moved.count()).toBe(2);
    expect(s.io.of('/').sockets.size).toBe(0);
  });
});
