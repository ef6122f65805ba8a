// Socket load generator process: holds many Socket.IO clients (websocket transport, as browsers use),
// counts what they receive (messages and bytes on the wire) and when each state update arrived, so the
// runner can join them with the clicks' acknowledgements.
import type { Socket as NetSocket } from 'node:net';
import { SOCKET_PATH } from '@omc/contracts';
import { io, type Socket } from 'socket.io-client';
import { clickToScreen, Histogram, type HistogramData } from './stats.js';
import { nowMs, serveCalls } from './workers.js';

interface Client {
  socket: Socket;
  counters: number[];
  times: number[];
  messages: number;
  estimatedBytes: number;
  winners: number;
  firstWinnerAt?: number;
}

const clients: Client[] = [];
let recording = false;
let markAt = 0;
let bytesAtMark = 0;
let estimatedAtMark = 0;
let messagesAtMark = 0;

function raw(socket: Socket): NetSocket | undefined {
  return (socket.io.engine as any)?.transport?.ws?._socket as NetSocket | undefined;
}

function wireBytes(): { bytes: number; exact: boolean } {
  let bytes = 0;
  let exact = true;
  for (const client of clients) {
    const netSocket = raw(client.socket);
    if (netSocket) bytes += netSocket.bytesRead;
    else exact = false;
  }
  return { bytes, exact };
}

function connectOne(url: string, token: string | undefined): Promise<Client | string> {
  return new Promise((resolve) => {
    const socket = io(url, {
      path: SOCKET_PATH,
      transports: ['websocket'],
      auth: token ? { token } : {},
      reconnection: false,
      forceNew: true,
      timeout: 20_000,
    });
    const client: Client = { socket, counters: [], times: [], messages: 0, estimatedBytes: 0, winners: 0 };
    socket.onAny(() => {
      client.messages += 1;
    });
    socket.on('gameStateUpdate', (state: { globalClicks: number }) => {
      if (!recording) return;
      client.counters.push(state.globalClicks);
      client.times.push(nowMs());
    });
    socket.on('winner', () => {
      client.winners += 1;
      client.firstWinnerAt ??= nowMs();
    });
    socket.once('connect', () => {
      // Engine.IO "4" + the packet, plus the 2 or 4 bytes of a server-to-client websocket frame header.
      socket.io.engine.on('data', (data: unknown) => {
        const length =
          typeof data === 'string' ? Buffer.byteLength(data) + 1 : (data as ArrayBuffer).byteLength + 1;
        client.estimatedBytes += length + (length < 126 ? 2 : 4);
      });
      resolve(client);
    });
    socket.once('connect_error', (error) => {
      socket.close();
      resolve(error.message);
    });
  });
}

async function connect(args: { url: string; count: number; tokens: string[]; concurrency: number }) {
  const errors: Record<string, number> = {};
  let index = 0;
  let connected = 0;
  const lane = async () => {
    while (index < args.count) {
      const i = index++;
      const token = args.tokens.length > 0 ? args.tokens[i % args.tokens.length] : undefined;
      const outcome = await connectOne(args.url, token);
      if (typeof outcome === 'string') errors[outcome] = (errors[outcome] ?? 0) + 1;
      else {
        clients.push(outcome);
        connected += 1;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, args.concurrency) }, lane));
  return { connected, failed: args.count - connected, errors, total: clients.length };
}

function mark() {
  for (const client of clients) {
    client.counters = [];
    client.times = [];
  }
  recording = true;
  markAt = nowMs();
  bytesAtMark = wireBytes().bytes;
  estimatedAtMark = clients.reduce((sum, c) => sum + c.estimatedBytes, 0);
  messagesAtMark = clients.reduce((sum, c) => sum + c.messages, 0);
  return { sockets: clients.length };
}

/** Ends the recording; with acks, joins them to every client's updates into a latency histogram. */
function measure(args: { acks?: { ordinals: number[]; times: number[] } }) {
  recording = false;
  const durationMs = nowMs() - markAt;
  const wire = wireBytes();
  const estimated = clients.reduce((sum, c) => sum + c.estimatedBytes, 0) - estimatedAtMark;
  const messages = clients.reduce((sum, c) => sum + c.messages, 0) - messagesAtMark;
  const stateUpdates = clients.reduce((sum, c) => sum + c.counters.length, 0);
  const connectedNow = clients.filter((c) => c.socket.connected).length;

  let histogram: HistogramData | undefined;
  let matched = 0;
  let missed = 0;
  if (args.acks && args.acks.ordinals.length > 0) {
    const h = new Histogram();
    const acks = { ordinals: args.acks.ordinals, times: args.acks.times, length: args.acks.ordinals.length };
    for (const client of clients) {
      const result = clickToScreen(
        { counters: client.counters, times: client.times, length: client.counters.length },
        acks,
        h,
      );
      matched += result.matched;
      missed += result.missed;
    }
    histogram = h.toJSON();
  }

  // The interval between state updates as screens see it, from a few clients.
  const gaps: number[] = [];
  for (const client of clients.slice(0, 20)) {
    for (let i = 1; i < client.times.length; i++) gaps.push(client.times[i]! - client.times[i - 1]!);
  }
  return {
    sockets: clients.length,
    connectedNow,
    durationMs,
    messages,
    stateUpdates,
    bytes: wire.exact ? wire.bytes - bytesAtMark : estimated,
    bytesExact: wire.exact,
    histogram,
    matched,
    missed,
    gaps,
  };
}

/** Winner events since the last reset: who got one, how many each, and when the first arrived. */
function resetWinners() {
  for (const client of clients) {
    client.winners = 0;
    delete client.firstWinnerAt;
  }
}

function winners(args: { since: number }) {
  const h = new Histogram();
  let received = 0;
  let duplicates = 0;
  for (const client of clients) {
    if (client.firstWinnerAt === undefined) continue;
    received += 1;
    if (client.winners > 1) duplicates += 1;
    h.record(client.firstWinnerAt - args.since);
  }
  return { sockets: clients.length, received, duplicates, histogram: h.toJSON() };
}

async function close() {
  for (const client of clients) client.socket.close();
  clients.length = 0;
  return { closed: true };
}

serveCalls({ connect, mark, measure, resetWinners, winners, close });
