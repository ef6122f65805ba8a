// Websocket upgrades on /socket.io go to the realtime instances, balanced round-robin; an instance
// that refuses a connection, or answers 503 (it is draining), is skipped for a few seconds and the next
// one tried. Once upgraded the connection is a plain TCP tunnel: no per-message work at the edge, however
// many updates flow. A stopping gateway refuses new upgrades and closes its tunnels in slices over its
// drain window, so their clients reconnect (to another gateway) a few at a time.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { connect, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { errorBody, SOCKET_PATH } from '@omc/contracts';
import { addressBudgetKey, type Metrics } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import { clientAddress, trustFunction, type TrustProxy } from '../edge/client-address.js';
import { pathProblem, requestPath } from '../edge/path-guard.js';

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const CONNECT_TIMEOUT_MS = 2_000;
const SKIP_DOWN_MS = 3_000;
/** Headers the gateway sets itself; the caller's versions are dropped. */
const OWN_HEADERS = new Set([
  'x-request-id',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-real-ip',
  'forwarded',
]);

interface Upstream {
  host: string;
  port: number;
  downUntil: number;
}

export interface SocketTunnelOptions {
  upstreams: string[];
  trustProxy: TrustProxy;
  /** Tunnels one client address may hold at once; 0 means no cap. */
  maxPerAddress: number;
  metrics: Metrics;
  /** On close, tunnels are closed in slices over this window. */
  drainMs: number;
}

/** An upstream's answer to the upgrade that says it takes no new sockets (a draining realtime). */
const DRAINING = /^HTTP\/1\.[01] 503 /;
const DRAIN_SLICE_MS = 250;

function refuse(socket: Duplex, status: number, reason: string, message: string, requestId: string): void {
  const body = JSON.stringify(errorBody(message, { requestId }));
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n${body}`,
  );
}

export function attachSocketTunnel(app: FastifyInstance, options: SocketTunnelOptions): void {
  const upstreams: Upstream[] = options.upstreams.map((u) => {
    const url = new URL(u);
    return {
      host: url.hostname,
      port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)),
      downUntil: 0,
    };
  });
  const trust = trustFunction(options.trustProxy);
  const open = new Set<Duplex>();
  /** The client side of each open tunnel: closing it closes the tunnel. */
  const tunnels = new Set<Duplex>();
  /** Tunnels held (or being dialled) per client address. */
  const perAddress = new Map<string, number>();
  const release = (address: string) => {
    const n = (perAddress.get(address) ?? 1) - 1;
    if (n <= 0) perAddress.delete(address);
    else perAddress.set(address, n);
  };
  let next = 0;

  const upgrades = options.metrics.counter(
    'gateway_websocket_upgrades_total',
    'Websocket upgrades, by outcome',
    ['outcome'],
  );
  options.metrics.gauge(
    'gateway_websocket_tunnels_open',
    'Websocket connections open through the gateway',
    [],
    function collect() {
      this.set(open.size / 2);
    },
  );

  /** Upstreams in round-robin order, those not recently refused first. */
  const candidates = (): Upstream[] => {
    const start = next++ % upstreams.length;
    const ordered = [...upstreams.slice(start), ...upstreams.slice(0, start)];
    const now = Date.now();
    return [...ordered.filter((u) => u.downUntil <= now), ...ordered.filter((u) => u.downUntil > now)];
  };

  const dial = (upstream: Upstream): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const socket = connect({ host: upstream.host, port: upstream.port });
      const timer = setTimeout(() => socket.destroy(new Error('connect timeout')), CONNECT_TIMEOUT_MS);
      socket.once('connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(socket);
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        upstream.downUntil = Date.now() + SKIP_DOWN_MS;
        reject(error);
      });
    });

  /**
   * Dials `upstream`, sends it the upgrade and waits for its first bytes: a 503 (draining) counts as a
   * refusal, like a refused connection. Resolves to the connection and those bytes.
   */
  const handOver = async (
    candidate: Upstream,
    upgradeRequest: string,
    head: Buffer,
  ): Promise<{ socket: Socket; first: Buffer }> => {
    const socket = await dial(candidate);
    socket.setNoDelay(true);
    socket.write(upgradeRequest);
    if (head.length > 0) socket.write(head);
    // No time limit here: a busy instance that accepted the connection answers when it can, and the
    // client's own handshake timeout bounds the wait (a second instance would only double the work).
    const first = await new Promise<Buffer>((resolve, reject) => {
      const fail = (error: Error) => {
        socket.destroy();
        reject(error);
      };
      socket.once('data', (chunk: Buffer) => {
        socket.pause();
        socket.removeListener('error', fail).removeListener('close', closed);
        resolve(chunk);
      });
      const closed = () => fail(new Error('closed before answering the upgrade'));
      socket.once('error', fail).once('close', closed);
    });
    if (DRAINING.test(first.toString('latin1', 0, 20))) {
      socket.destroy();
      candidate.downUntil = Date.now() + SKIP_DOWN_MS;
      throw new Error('draining');
    }
    return { socket, first };
  };

  let closing = false;
  const onUpgrade = async (request: IncomingMessage, client: Duplex, head: Buffer) => {
    const given = request.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    client.on('error', () => client.destroy());
    if (closing) {
      upgrades.inc({ outcome: 'unavailable' });
      return refuse(client, 503, 'Service Unavailable', 'The gateway is restarting, try again', requestId);
    }
    const path = requestPath(request.url);
    if (pathProblem(request.url) || !path || !(path === SOCKET_PATH || path.startsWith(`${SOCKET_PATH}/`))) {
      upgrades.inc({ outcome: 'not_found' });
      return refuse(client, 404, 'Not Found', 'Only /socket.io accepts websocket connections', requestId);
    }

    // Counted before dialling, in the same turn as the check, so a burst of upgrades cannot pass it together.
    const address = clientAddress(request, trust);
    // The cap's key: the address, or its /64 for IPv6. The tunnel still forwards the address itself.
    const budget = addressBudgetKey(address);
    const held = perAddress.get(budget) ?? 0;
    if (options.maxPerAddress > 0 && held >= options.maxPerAddress) {
      upgrades.inc({ outcome: 'too_many' });
      return refuse(
        client,
        429,
        'Too Many Requests',
        `Too many live connections from your address (at most ${options.maxPerAddress})`,
        requestId,
      );
    }
    perAddress.set(budget, held + 1);
    let released = false;
    const releaseOnce = () => {
      if (released) return;
      released = true;
      release(budget);
    };

    const forwardedFor = address;
    const lines = [`${request.method} ${request.url} HTTP/1.1`];
    for (let i = 0; i < request.rawHeaders.length; i += 2) {
      const name = request.rawHeaders[i]!;
      if (!OWN_HEADERS.has(name.toLowerCase())) lines.push(`${name}: ${request.rawHeaders[i + 1]}`);
    }
    lines.push(`X-Request-Id: ${requestId}`, `X-Forwarded-For: ${forwardedFor}`, `X-Forwarded-Proto: http`);
    const upgradeRequest = `${lines.join('\r\n')}\r\n\r\n`;

    let upstream: Socket | undefined;
    let answer: Buffer | undefined;
    for (const candidate of candidates()) {
      try {
        ({ socket: upstream, first: answer } = await handOver(candidate, upgradeRequest, head));
        break;
      } catch (error) {
        app.log.warn(
          { err: error, upstream: `${candidate.host}:${candidate.port}`, requestId },
          'realtime instance refused a connection',
        );
      }
    }
    if (!upstream) {
      releaseOnce();
      upgrades.inc({ outcome: 'unavailable' });
      return refuse(
        client,
        503,
        'Service Unavailable',
        'The live service is unavailable, try again shortly',
        requestId,
      );
    }
    if (client.destroyed) {
      releaseOnce();
      return void upstream.destroy();
    }

    client.write(answer!);
    open.add(client).add(upstream);
    tunnels.add(client);
    upgrades.inc({ outcome: 'tunnelled' });
    const close = () => {
      releaseOnce();
      open.delete(client);
      open.delete(upstream);
      tunnels.delete(client);
      client.destroy();
      upstream.destroy();
    };
    upstream.on('error', close).on('close', close);
    client.on('error', close).on('close', close);
    upstream.pipe(client);
    client.pipe(upstream);
  };

  app.server.on(
    'upgrade',
    (request: IncomingMessage, socket: Duplex, head: Buffer) => void onUpgrade(request, socket, head),
  );
  app.addHook('preClose', async () => {
    closing = true;
    const clients = [...tunnels];
    let slices = Math.max(1, Math.floor(options.drainMs / DRAIN_SLICE_MS));
    while (clients.length > 0) {
      for (const socket of clients.splice(0, Math.ceil(clients.length / slices))) socket.destroy();
      slices = Math.max(1, slices - 1);
      if (clients.length > 0) await new Promise((resolve) => setTimeout(resolve, DRAIN_SLICE_MS));
    }
    for (const socket of open) socket.destroy();
  });
}
