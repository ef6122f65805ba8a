// Websocket upgrades on /socket.io go to the realtime instances, balanced round-robin; an instance
// that refuses a connection, or answers 503 (it is draining), is skipped for a few seconds and the next
// one tried. Once upgraded the connection is a plain TCP tunnel: no per-message work at the edge, however
// many updates flow. A stopping gateway refuses new upgrades and closes its tunnels in slices over its
// drain window, so their clients reconnect (to another gateway) a few at a time.
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Metrics } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import { clientAddress, trustFunction, type TrustProxy } from '../edge/client-address.js';
import { AddressCap } from './socket-address-cap.js';
import { OpenTunnels } from './socket-open-tunnels.js';
import { tunnelMetrics } from './socket-tunnel-metrics.js';
import { isSocketPath, refuse, upgradeRequestId, upgradeRequestText } from './socket-upgrade-request.js';
import { pickUpstream, realtimeUpstreams, roundRobin } from './socket-upstreams.js';

export interface SocketTunnelOptions {
  upstreams: string[];
  trustProxy: TrustProxy;
  /** Tunnels one client address may hold at once; 0 means no cap. */
  maxPerAddress: number;
  metrics: Metrics;
  /** On close, tunnels are closed in slices over this window. */
  drainMs: number;
}

export function attachSocketTunnel(app: FastifyInstance, options: SocketTunnelOptions): void {
  const candidates = roundRobin(realtimeUpstreams(options.upstreams));
  const trust = trustFunction(options.trustProxy);
  const cap = new AddressCap(options.maxPerAddress);
  const tunnels = new OpenTunnels();
  const upgraded = tunnelMetrics(options.metrics, () => tunnels.count);
  let closing = false;

  const onUpgrade = async (request: IncomingMessage, client: Duplex, head: Buffer) => {
    const requestId = upgradeRequestId(request);
    client.on('error', () => client.destroy());
    if (closing) {
      upgraded('unavailable');
      return refuse(client, 503, 'Service Unavailable', 'The gateway is restarting, try again', requestId);
    }
    if (!isSocketPath(request.url)) {
      upgraded('not_found');
      return refuse(client, 404, 'Not Found', 'Only /socket.io accepts websocket connections', requestId);
    }
    // The tunnel forwards the address itself; the cap counts it (or its /64) before dialling.
    const address = clientAddress(request, trust);
    const release = cap.take(address);
    if (!release) {
      upgraded('too_many');
      const message = `Too many live connections from your address (at most ${cap.max})`;
      return refuse(client, 429, 'Too Many Requests', message, requestId);
    }

    const picked = await pickUpstream(
      candidates(),
      upgradeRequestText(request, requestId, address),
      head,
      (upstream, error) =>
        app.log.warn(
          { err: error, upstream: `${upstream.host}:${upstream.port}`, requestId },
          'realtime instance refused a connection',
        ),
    );
    if (!picked) {
      release();
      upgraded('unavailable');
      const message = 'The live service is unavailable, try again shortly';
      return refuse(client, 503, 'Service Unavailable', message, requestId);
    }
    if (client.destroyed) {
      release();
      return void picked.socket.destroy();
    }
    tunnels.join(client, picked.socket, picked.first, release);
    upgraded('tunnelled');
  };

  app.server.on(
    'upgrade',
    (request: IncomingMessage, socket: Duplex, head: Buffer) => void onUpgrade(request, socket, head),
  );
  app.addHook('preClose', async () => {
    closing = true;
    await tunnels.closeAll(options.drainMs);
  });
}
