// Socket load generator process: holds many clients of the live connection (websocket transport, as
// browsers connect), counts what they receive (messages and bytes on the wire) and when each state
// update arrived, so the runner can join them with the clicks' acknowledgements.
//
// Two clients (BENCH_SOCKET_CLIENT): `protocol` (the default) speaks Socket.IO's protocol, Engine.IO 4
// over a websocket, on a bare `ws` socket and reads only the counter of a state update; `socket.io` is
// the full socket.io-client. The servers see the same bytes from both. The full client decodes every
// packet into objects: with the servers on the same two cores, its burst of work at each tick starves
// them and shows up as delivery delay and fewer clicks (docs/performance.md).
import type { Socket as NetSocket } from 'node:net';
import { SOCKET_PATH } from '@omc/contracts';
import { io } from 'socket.io-client';
import WebSocket from 'ws';
import { clickToScreen, Histogram, type HistogramData } from './stats.js';
import { nowMs, serveCalls } from './workers.js';

interface Client {
  isConnected(): boolean;
  /** The client's TCP socket once connected, for the bytes read. */
  netSocket(): NetSocket | undefined;
  close(): void;
  counters: number[];
  times: number[];
  messages: number;
  winners: number;
  firstWinnerAt?: number;
  /** Records its updates' arrival times while recording (the timed clients; the others only listen). */
  timed: boolean;
}

const clients: Client[] = [];
let recording = false;
let markAt = 0;
let bytesAtMark = 0;
let messagesAtMark = 0;

function newClient(parts: Pick<Client, 'isConnected' | 'netSocket' | 'close'>): Client {
  return { ...parts, counters: [], times: [], messages: 0, winners: 0, timed: true };
}

function onState(client: Client, globalClicks: number): void {
  if (!recording || !client.timed) return;
  client.counters.push(globalClicks);
  client.times.push(nowMs());
}

function onWinner(client: Client): void {
  client.winners += 1;
  client.firstWinnerAt ??= nowMs();
}

/** Bytes read on the clients' TCP sockets; not exact if a client's socket could not be reached. */
function wireBytes(): { bytes: number; exact: boolean } {
  let bytes = 0;
  let exact = true;
  for (const client of clients) {
    const netSocket = client.netSocket();
    if (netSocket) bytes += netSocket.bytesRead;
    else exact = false;
  }
  return { bytes, exact };
}

const STATE_EVENT = Buffer.from('42["gameStateUpdate"');
const WINNER_EVENT = Buffer.from('42["winner"');
const COUNTER = Buffer.from('"globalClicks":');
const [DIGIT_4, DIGIT_2, DIGIT_0, DIGIT_9] = [0x34, 0x32, 0x30, 0x39];

const startsWith = (data: Buffer, prefix: Buffer) =>
  data.length >= prefix.length && data.compare(prefix, 0, prefix.length, 0, prefix.length) === 0;

/** The counter of a state update, read from its bytes (no string, no regular expression per message). */
function counterOf(data: Buffer): number | undefined {
  const at = data.indexOf(COUNTER);
  if (at < 0) return undefined;
  let value = 0;
  let i = at + COUNTER.length;
  for (; i < data.length && data[i]! >= DIGIT_0 && data[i]! <= DIGIT_9; i++)
    value = value * 10 + data[i]! - DIGIT_0;
  return i > at + COUNTER.length ? value : undefined;
}

/** Engine.IO: the server opens ("0{...}") and pings ("2"); Socket.IO: "40" connects, "42[...]" is an event. */
function connectWithProtocol(url: string, token: string | undefined): Promise<Client | string> {
  return new Promise((resolve) => {
    const target = new URL(`${SOCKET_PATH}/?EIO=4&transport=websocket`, url);
    target.protocol = target.protocol === 'https:' ? 'wss:' : 'ws:';
    // The socket workers share the servers' cores: each message costs as little as it can (no UTF-8 check,
    // a Socket.IO event is read from its bytes).
    const ws = new WebSocket(target, {
      perMessageDeflate: false,
      handshakeTimeout: 20_000,
      skipUTF8Validation: true,
    });
    let connected = false;
    const client = newClient({
      isConnected: () => connected,
      netSocket: () => (ws as any)._socket as NetSocket | undefined,
      close: () => ws.terminate(),
    });
    let settled = false;
    const settle = (outcome: Client | string) => {
      if (settled) return;
      settled = true;
      if (typeof outcome === 'string') ws.terminate();
      resolve(outcome);
    };
    ws.on('message', (data: Buffer) => {
      if (data[0] === DIGIT_4 && data[1] === DIGIT_2) {
        client.messages += 1;
        if (startsWith(data, STATE_EVENT)) {
          const counter = counterOf(data);
          if (counter !== undefined) onState(client, counter);
        } else if (startsWith(data, WINNER_EVENT)) onWinner(client);
        return;
      }
      const text = data.toString();
      if (text === '2') ws.send('3');
      else if (text.startsWith('0')) ws.send(`40${JSON.stringify(token ? { token } : {})}`);
      else if (text.startsWith('40')) {
        connected = true;
        settle(client);
      } else if (text.startsWith('41')) connected = false;
      else if (text.startsWith('44')) settle(text.slice(2) || 'connect error');
    });
    ws.on('error', (error) => settle(error.message));
    ws.on('close', () => {
      connected = false;
      settle('closed before connecting');
    });
  });
}

function connectWithSocketIo(url: string, token: string | undefined): Promise<Client | string> {
  return new Promise((resolve) => {
    const socket = io(url, {
      path: SOCKET_PATH,
      transports: ['websocket'],
      auth: token ? { token } : {},
      reconnection: false,
      forceNew: true,
      timeout: 20_000,
    });
    const client = newClient({
      isConnected: () => socket.connected,
      netSocket: () => (socket.io.engine as any)?.transport?.ws?._socket as NetSocket | undefined,
      close: () => socket.close(),
    });
    socket.onAny(() => {
      client.messages += 1;
    });
    socket.on('gameStateUpdate', (state: { globalClicks: number }) => onState(client, state.globalClicks));
    socket.on('winner', () => onWinner(client));
    socket.once('connect', () => resolve(client));
    socket.once('connect_error', (error) => {
      socket.close();
      resolve(error.message);
    });
  });
}

const connectOne =
  process.env.BENCH_SOCKET_CLIENT === 'socket.io' ? connectWithSocketIo : connectWithProtocol;

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

/** Starts recording; with `timed`, only that many clients record arrival times (the rest listen). */
function mark(args?: { timed?: number }) {
  const timed = args?.timed ?? clients.length;
  clients.forEach((client, i) => {
    client.counters = [];
    client.times = [];
    client.timed = i < timed;
  });
  recording = true;
  markAt = nowMs();
  bytesAtMark = wireBytes().bytes;
  messagesAtMark = clients.reduce((sum, c) => sum + c.messages, 0);
  return { sockets: clients.length };
}

/** Ends the recording; with acks, joins them to every client's updates into a latency histogram. */
function measure(args: { acks?: { ordinals: number[]; times: number[] } }) {
  recording = false;
  const durationMs = nowMs() - markAt;
  const wire = wireBytes();
  const messages = clients.reduce((sum, c) => sum + c.messages, 0) - messagesAtMark;
  const stateUpdates = clients.reduce((sum, c) => sum + c.counters.length, 0);
  const connectedNow = clients.filter((c) => c.isConnected()).length;

  let histogram: HistogramData | undefined;
  let matched = 0;
  let missed = 0;
  if (args.acks && args.acks.ordinals.length > 0) {
    const h = new Histogram();
    const acks = { ordinals: args.acks.ordinals, times: args.acks.times, length: args.acks.ordinals.length };
    for (const client of clients) {
      if (!client.timed) continue;
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
    bytes: wire.bytes - bytesAtMark,
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
  for (const client of clients) client.close();
  clients.length = 0;
  return { closed: true };
}

serveCalls({ connect, mark, measure, resetWinners, winners, close });
