// The tick's direct write against a real Socket.IO server and client: what a client receives is exactly
// what Socket.IO's own emit would give it, at every frame length, and a socket with a message still
// being written gets the event through Socket.IO, after that message.
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io as connect, type Socket as ClientSocket } from 'socket.io-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeEventFrame, writeEventsToRoom, writeToRoom } from './room-writer.js';

describe('writing a room directly', () => {
  let http: HttpServer;
  let server: Server;
  const clients: ClientSocket[] = [];

  const connectClient = async (room: string) => {
    const { port } = http.address() as AddressInfo;
    const client = connect(`http://127.0.0.1:${port}`, {
      transports: ['websocket'],
      query: { room },
      forceNew: true,
    });
    clients.push(client);
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('connect_error', reject);
    });
    return client;
  };

  /** The next `count` events named `event` a client receives. */
  const next = (client: ClientSocket, event: string, count = 1) =>
    new Promise<unknown[]>((resolve) => {
      const got: unknown[] = [];
      const on = (data: unknown) => {
        got.push(data);
        if (got.length === count) {
          client.off(event, on);
          resolve(got);
        }
      };
      client.on(event, on);
    });

  beforeAll(async () => {
    http = createServer();
    server = new Server(http, { transports: ['websocket'] });
    server.on('connection', (socket) => void socket.join(String(socket.handshake.query.room)));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    for (const c of clients) c.disconnect();
    await server.close();
  });

  it('frames the event as Socket.IO would, short, medium and long', () => {
    for (const size of [10, 200, 70_000]) {
      const data = { text: 'x'.repeat(size) };
      const frame = encodeEventFrame('gameStateUpdate', data);
      const payload = `42${JSON.stringify(['gameStateUpdate', data])}`;
      const headerLength = payload.length < 126 ? 2 : payload.length < 65_536 ? 4 : 10;
      expect(frame.length).toBe(headerLength + payload.length);
      expect(frame[0]).toBe(0x81);
      expect(frame.subarray(headerLength).toString()).toBe(payload);
    }
  });

  it('delivers the same data to every socket of the room and to no other', async () => {
    const [a, b, other] = [
      await connectClient('players'),
      await connectClient('players'),
      await connectClient('guests'),
    ];
    const states = [
      { globalClicks: 7, pot: 1.5, lastWinner: null, lastClickUser: 'ana' },
      { globalClicks: 8, pot: 1.5, lastWinner: 'José', lastClickUser: 'ñandú "quoted" \u2028' },
      { globalClicks: 9, pot: 0, note: 'y'.repeat(70_000) },
    ];
    const atA = next(a, 'gameStateUpdate', states.length);
    const atB = next(b, 'gameStateUpdate', states.length);
    let otherGot = 0;
    other.on('gameStateUpdate', () => otherGot++);
    const written = states.map((state) => writeToRoom(server.of('/'), 'players', 'gameStateUpdate', state));
    expect(await atA).toEqual(states);
    expect(await atB).toEqual(states);
    expect(written[0]).toEqual({ direct: 2, fallback: 0 });
    // A marker through the normal path arrives after everything above: the guest got none of it.
    const marker = next(other, 'marker');
    server.to('guests').emit('marker', 1);
    await marker;
    expect(otherGot).toBe(0);
  });

  it('keeps the order when a socket is still writing a message: that socket goes through Socket.IO', async () => {
    const client = await connectClient('ordered');
    const received: string[] = [];
    const done = new Promise<void>((resolve) => {
      client.on('first', () => received.push('first'));
      client.on('gameStateUpdate', (state: { n: number }) => {
        received.push(`state ${state.n}`);
        if (state.n === 2) resolve();
      });
    });
    const socket = [...server.of('/').sockets.values()].find((s) => s.rooms.has('ordered'))!;
    socket.emit('first', 1);
    // In the same turn the first message is still being written: the direct path must not overtake it.
    const first = writeToRoom(server.of('/'), 'ordered', 'gameStateUpdate', { n: 1 });
    const second = writeToRoom(server.of('/'), 'ordered', 'gameStateUpdate', { n: 2 });
    await done;
    expect(received).toEqual(['first', 'state 1', 'state 2']);
    expect(first).toEqual({ direct: 0, fallback: 1 });
    expect(second.direct + second.fallback).toBe(1);
  });

  it('writes the events of one tick in one write, each received as its own event, in order', async () => {
    const [a, busy] = [await connectClient('tick'), await connectClient('tick')];
    const order = (client: ClientSocket) => {
      const got: string[] = [];
      const done = new Promise<string[]>((resolve) => {
        client.on('gameStateUpdate', (state: { globalClicks: number }) =>
          got.push(`state ${state.globalClicks}`),
        );
        client.on('userCountUpdate', (count: number) => {
          got.push(`count ${count}`);
          if (count === 2) resolve(got);
        });
      });
      return done;
    };
    const [atA, atBusy] = [order(a), order(busy)];
    // One socket still writing a message: it gets the same events, in the same order, through Socket.IO.
    const socket = [...server.of('/').sockets.values()].find((s) => s.id === busy.id)!;
    socket.emit('userCountUpdate', 0);
    const first = writeEventsToRoom(server.of('/'), 'tick', [
      ['gameStateUpdate', { globalClicks: 41 }],
      ['userCountUpdate', 1],
    ]);
    const second = writeEventsToRoom(server.of('/'), 'tick', [
      ['gameStateUpdate', { globalClicks: 42 }],
      ['userCountUpdate', 2],
    ]);
    expect(await atA).toEqual(['state 41', 'count 1', 'state 42', 'count 2']);
    expect(await atBusy).toEqual(['count 0', 'state 41', 'count 1', 'state 42', 'count 2']);
    expect(first).toEqual({ direct: 1, fallback: 1 });
    expect(second.direct + second.fallback).toBe(2);
    expect(writeEventsToRoom(server.of('/'), 'tick', [])).toEqual({ direct: 0, fallback: 0 });
  });

  it('writes nothing to an empty or unknown room', () => {
    expect(writeToRoom(server.of('/'), 'nobody', 'gameStateUpdate', {})).toEqual({ direct: 0, fallback: 0 });
  });
});
