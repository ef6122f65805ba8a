// A replica behind an upstream's Service dies while the gateway holds a keep-alive connection to it (a
// SIGKILLed pod): the request sent on that connection gets no answer. A read is safe to send again and
// the balancer gives the new connection to a live replica, so the visitor sees the answer; a write
// (a click, a checkout) is never sent twice by the gateway: the caller sees the failure and decides.
import { createServer, type Server, type Socket } from 'node:net';
import { testInfra } from '@omc/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  makeWebDist,
  rawRequest,
  startGateway,
  startStandIn,
  type Gateway,
  type StandIn,
} from './support.js';

/** An upstream that reads each request and, while `drops` lasts, closes the connection without answering. */
interface DyingUpstream {
  url: string;
  requests: string[];
  drops: number;
  close(): Promise<void>;
}

async function startDyingUpstream(): Promise<DyingUpstream> {
  const sockets = new Set<Socket>();
  const upstream: DyingUpstream = { url: '', requests: [], drops: 0, close: async () => undefined };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      for (;;) {
        const end = buffered.indexOf('\r\n\r\n');
        if (end < 0) return;
        const head = buffered.slice(0, end);
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        buffered = buffered.slice(end + 4 + length);
        const line = head.split('\r\n')[0]!;
        upstream.requests.push(line);
        if (upstream.drops > 0) {
          upstream.drops -= 1;
          socket.destroy();
          return;
        }
        const body = JSON.stringify({ answered: line });
        socket.write(
          `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: keep-alive\r\n\r\n${body}`,
        );
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  upstream.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  upstream.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return upstream;
}

describe('an upstream replica lost under a kept-alive connection', () => {
  let game: DyingUpstream;
  let others: StandIn;
  let gateway: Gateway;

  beforeAll(async () => {
    game = await startDyingUpstream();
    others = await startStandIn('others');
    gateway = await startGateway({
      AUTH_URL: others.url,
      GAME_URL: game.url,
      PAYMENTS_URL: others.url,
      REALTIME_URLS: 'http://127.0.0.1:9',
      REDIS_URL: testInfra().redisUrls.gateway,
      WEB_DIST: makeWebDist(),
      RATE_LIMIT_PER_IP: '0',
    });
  });

  afterAll(async () => {
    await gateway?.close();
    await others?.close();
    await game?.close();
  });

  it('answers a read from another connection when the first one dies unanswered', async () => {
    // A first read opens the kept-alive connection; the next one is sent on it and the replica dies.
    expect((await rawRequest(gateway.url, '/api/winners')).status).toBe(200);
    game.requests.length = 0;
    game.drops = 1;
    const response = await rawRequest(gateway.url, '/api/winners?limit=5');
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({ answered: 'GET /api/winners?limit=5 HTTP/1.1' });
    expect(game.requests).toEqual(['GET /api/winners?limit=5 HTTP/1.1', 'GET /api/winners?limit=5 HTTP/1.1']);
  });

  it('never sends a click twice: the caller hears the failure', async () => {
    game.requests.length = 0;
    game.drops = 1;
    const response = await rawRequest(gateway.url, '/api/game/click', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(response.status).toBe(502);
    expect(game.requests).toEqual(['POST /api/game/click HTTP/1.1']);
  });
});
