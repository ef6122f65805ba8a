// The per-address cap on sockets (WS_MAX_PER_IP): three counts and the leases that carry it across
// instances. Engine connections are capped at twice the cap before any handshake (a hard stop, HTTP 400
// with the reason); Socket.IO connections at the cap, counted in the same turn as the check so a burst
// cannot pass together, then held by a lease in Redis that every instance sees.
import type { IncomingMessage } from 'node:http';
import { AddressLeases, type Redis, type TrustFunction } from '@omc/service-kit';
import type { LiveMetrics } from './live-metrics.js';
import { clientAddress, Tally } from './connection-caps.js';

export interface AddressCapOptions {
  cap: number;
  leaseMs: number;
  instance: string;
  redis: Redis;
  trusted: TrustFunction;
  refused: LiveMetrics['refused'];
}

/** What the cap needs of a socket: its request, and a hook on its connection's close. */
interface CappedSocket {
  id: string;
  conn: { request: IncomingMessage; once(event: 'close', listener: () => void): unknown };
}

export class TooManyConnections extends Error {
  readonly data: { message: string; error: string; msg: string };
  constructor(message: string) {
    super(message);
    this.data = { message, error: message, msg: message };
  }
}

export interface AddressCap {
  /** Engine.IO's allowRequest: the hard stop at twice the cap. */
  allowRequest(request: IncomingMessage, callback: (error: string | null, ok: boolean) => void): void;
  /** Counts an engine connection until it closes. */
  countEngine(conn: { request: IncomingMessage; once(event: 'close', listener: () => void): unknown }): void;
  /** Takes the socket's place under the cap; rejects with TooManyConnections. Resolves to its address. */
  admit(socket: CappedSocket): Promise<string>;
  close(): Promise<void>;
}

export function createAddressCap(options: AddressCapOptions): AddressCap {
  const { cap, trusted, refused } = options;
  /** Engine connections per address, whether or not they finished the Socket.IO handshake. */
  const engineConnections = new Tally();
  /** Socket.IO connections per address: the cap a client is told about. */
  const socketsByAddress = new Tally();
  const tooMany = `Too many connections from your address (at most ${cap})`;
  /** The cap across every instance: a lease per socket in Redis (the local tally holds while Redis is away). */
  const leases = cap > 0 ? new AddressLeases(options.redis, cap, options.leaseMs) : undefined;

  return {
    allowRequest(request, callback) {
      const over = cap > 0 && engineConnections.count(clientAddress(request, trusted)) >= 2 * cap;
      if (over) refused.inc({ where: 'engine' });
      callback(over ? tooMany : null, !over);
    },
    countEngine(conn) {
      const address = clientAddress(conn.request, trusted);
      engineConnections.add(address);
      conn.once('close', () => engineConnections.remove(address));
    },
    async admit(socket) {
      // Counted before anything asynchronous, so concurrent handshakes cannot pass the cap together.
      const address = clientAddress(socket.conn.request, trusted);
      if (cap > 0 && socketsByAddress.count(address) >= cap) {
        refused.inc({ where: 'handshake' });
        throw new TooManyConnections(tooMany);
      }
      socketsByAddress.add(address);
      socket.conn.once('close', () => socketsByAddress.remove(address));
      if (!leases) return address;
      const member = `${options.instance}:${socket.id}`;
      const ok = await leases.acquire(address, member).then(
        (acquired) => {
          socket.conn.once('close', () => leases.release(member));
          return acquired;
        },
        // Redis away: this instance's own count is the cap until it is back.
        () => true,
      );
      if (!ok) {
        refused.inc({ where: 'instances' });
        throw new TooManyConnections(tooMany);
      }
      return address;
    },
    close: async () => leases?.close(),
  };
}
