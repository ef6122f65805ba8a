// Who is behind a socket, as far as a per-address cap and a head count need: the client's address (from
// X-Forwarded-For only when the peer is a trusted proxy) and the person (a user's id, or else the address).
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import { addressBudgetKey, clientAddress as forwardedAddress, type TrustFunction } from '@omc/service-kit';

/**
 * The client's address as caps and head counts key it: the peer's own, or, when the peer is a trusted
 * proxy (TRUST_PROXY, service-kit's one implementation, the gateway's too), the nearest address that
 * proxy saw; an IPv6 address by its /64 (addressBudgetKey, as every per-address budget).
 */
export function clientAddress(request: IncomingMessage, trust: TrustFunction): string {
  const address = forwardedAddress(request, trust);
  return addressBudgetKey(isIP(address) !== 0 ? address : (request.socket.remoteAddress ?? 'unknown'));
}

/** Connections held per key, counted up and down. */
export class Tally {
  private readonly counts = new Map<string, number>();

  get size(): number {
    return this.counts.size;
  }

  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  add(key: string): number {
    const n = this.count(key) + 1;
    this.counts.set(key, n);
    return n;
  }

  remove(key: string): void {
    const n = this.count(key) - 1;
    if (n <= 0) this.counts.delete(key);
    else this.counts.set(key, n);
  }
}
