// Socket load generator process: holds many clients of the live connection and counts what they receive
// (messages and bytes on the wire) and when each state update arrived, so the runner can join them with
// the clicks' acknowledgements. Each client speaks Socket.IO's protocol (Engine.IO 4 over a websocket,
// as browsers connect) on a bare `ws` socket and reads only the counter of a state update: the full
// Socket.IO client decodes every packet into objects, and on the machine that also runs the servers
// that work would be measured as delivery delay.
import type { Socket as NetSocket } from 'node:net';
import { SOCKET_PATH } from '@omc/contracts';
import WebSocket from 'ws';
import { clickToScreen, Histogram, type HistogramData } from './stats.js';
import { nowMs, serveCalls } from './workers.js';

interface Client {
  ws: WebSocket;
  connected: boolean;
  counters: number[];
  times: number[];
  messages: number;
  winners: number;
  firstWinnerAt?: number;
}

const clients: Client[] = [];
let recording = false;
let markAt = 0;
let bytesAtMark = 0;
let messagesAtMark = 0;

const STATE_EVENT = '42["gameStateUpdate"';
const WINNER_EVENT = '42["winner"';
const COUNTER = /"globalClicks":(\d+)/;

function wireBytes(): number {
  let bytes = 0;
  for (const client of clients)
    bytes += ((client.ws as any)._socket as NetSocket | undefined)?.bytesRead ?? 0;
  return bytes;
}

/** Engine.IO: the server opens ("0{...}") and pings ("2"); Socket.IO: "40" connects, "42[...]" is an event. */
function connectOne(url: string, token: string | undefined): Promise<Client | string> {
  return new Promise((resolve) => {
    const target = new URL(`${SOCKET_PATH}/?EIO=4&transport=websocket`, url);
    target.protocol = target.protocol === 'https:' ? 'wss:' : 'ws:';
    const ws = new WebSocket(target, { perMessageDeflate: false, handshakeTimeout: 20_000 });
    const client: Client = { ws, connected: false, counters: [], times: [], messages: 0, winners: 0 };
    let settled = false;
    const settle = (outcome: Client | string) => {
      if (settled) return;
      settled = true;
      if (typeof outcome === 'string') ws.terminate();
      resolve(outcome);
    };
    ws.on('message', (data: Buffer) => {
      const text = data.toString();
      if (text.startsWith('42')) {
        client.messages += 1;
        if (text.startsWith(STATE_EVENT)) {
          if (!recording) return;
          const match = COUNTER.exec(text);
          if (match) {
            client.counters.push(Number(match[1]));
            client.times.push(nowMs());
          }
        } else if (text.startsWith(WINNER_EVENT)) {
          client.winners += 1;
          client.firstWinnerAt ??= nowMs();
        }
      } else if (text === '2') ws.send('3');
      else if (text.startsWith('0')) ws.send(`40${JSON.stringify(token ? { token } : {})}`);
      else if (text.startsWith('40')) {
        client.connected = true;
        settle(client);
      } else if (text.startsWith('41')) client.connected = false;
      else if (text.startsWith('44')) settle(text.slice(2) || 'connect error');
    });
    ws.on('error', (error) => settle(error.message));
    ws.on('close', () => {
      client.connected = false;
      settle('closed before connecting');
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
  bytesAtMark = wireBytes();
  messagesAtMark = clients.reduce((sum, c) => sum + c.messages, 0);
  return { sockets: clients.length };
}

/** Ends the recording; with acks, joins them to every client's updates into a latency histogram. */
function measure(args: { acks?: { ordinals: number[]; times: number[] } }) {
  recording = false;
  const durationMs = nowMs() - markAt;
  const bytes = wireBytes() - bytesAtMark;
  const messages = clients.reduce((sum, c) => sum + c.messages, 0) - messagesAtMark;
  const stateUpdates = clients.reduce((sum, c) => sum + c.counters.length, 0);
  const connectedNow = clients.filter((c) => c.connected).length;

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
    bytes,
    bytesExact: true,
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
  for (const client of clients) client.ws.terminate();
  clients.length = 0;
  return { closed: true };
}

serveCalls({ connect, mark, measure, resetWinners, winners, close });
