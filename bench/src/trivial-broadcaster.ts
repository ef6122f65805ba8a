// The fan-out baseline: the least a Node process can do to put one state update on every screen at the
// tick. A bare `ws` server (no compression) that speaks just enough of Engine.IO and Socket.IO for the
// bench's socket clients to connect, and at each tick sends one text frame to every socket: the same
// event and payload shape as realtime's, its body encoded once per tick (ws frames it per socket). Its
// CPU per delivered message, measured in the same run as realtime's, is what realtime's is compared with.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SOCKET_PATH } from '@omc/contracts';
import { WebSocketServer, type WebSocket } from 'ws';
import { serveCalls } from './workers.js';

const OPEN = `0${JSON.stringify({ sid: 'baseline', upgrades: [], pingInterval: 25_000, pingTimeout: 20_000, maxPayload: 4096 })}`;

const server = createServer((_request, response) => response.writeHead(404).end());
const wss = new WebSocketServer({ server, path: `${SOCKET_PATH}/`, perMessageDeflate: false });
const sockets = new Set<WebSocket>();
let counter = 1_000_000;
let ticker: NodeJS.Timeout | undefined;

wss.on('connection', (ws) => {
  ws.send(OPEN);
  ws.on('message', (data: Buffer) => {
    const text = data.toString();
    if (text.startsWith('40')) {
      ws.send('40{"sid":"baseline"}');
      sockets.add(ws);
    }
  });
  ws.on('close', () => sockets.delete(ws));
  ws.on('error', () => ws.terminate());
});

function tick(): void {
  counter += 17;
  const body = Buffer.from(
    `42${JSON.stringify(['gameStateUpdate', { globalClicks: counter, pot: 1234.56, lastWinner: 'user_0001', lastClickUser: 'user_0042' }])}`,
  );
  for (const ws of sockets) ws.send(body, { binary: false });
}

async function listen() {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Ticks from now on. Started once the sockets are in: a tick to thousands slows their arrival. */
function start(args: { hz: number }) {
  clearInterval(ticker);
  ticker = setInterval(tick, Math.round(1000 / args.hz));
  return { ticking: true };
}

async function close() {
  clearInterval(ticker);
  for (const ws of sockets) ws.terminate();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return { closed: true };
}

serveCalls({ listen, start, close });
