// Who is behind a socket, as far as a per-address cap and a head count need: the client's address (from
// X-Forwarded-For only when the peer is a trusted proxy) and the person (a user's id, or else the address).
import type { IncomingMessage } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { addressBudgetKey } from '@omc/service-kit';

/** The names TRUST_PROXY accepts, as the gateway's (proxy-addr's) ranges. */
export const NAMED_RANGES: Record<string, string[]> = {
  loopback: ['127.0.0.1/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/** A compiled TRUST_PROXY list: true when the peer may tell us the client's address. */
export function trustedPeer(list: string[]): (address: string) => boolean {
  const block = new BlockList();
  for (const entry of list.flatMap((e) => NAMED_RANGES[e] ?? [e])) {
    const [address, bits] = entry.split('/') as [string, string | undefined];
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
    if (bits === undefined) block.addAddress(address, family);
    else block.addSubnet(address, Number(bits), family);
  }
  return (raw) => {
    const address = normalise(raw);
    const family = isIP(address);
    return family !== 0 && block.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
}

const normalise = (address: string) => (address.startsWith('::ffff:') ? address.slice(7) : address);

/**
 * The client's address as caps and head counts key it: the peer's own, or, when the peer is a trusted
 * proxy, the nearest address that proxy saw (the last X-Forwarded-For entry; the gateway sends exactly
 * one); an IPv6 address by its /64 (service-kit's addressBudgetKey, as every per-address budget).
 */
export function clientAddress(request: IncomingMessage, trusted: (address: string) => boolean): string {
  return addressBudgetKey(forwardedAddress(request, trusted));
}

function forwardedAddress(request: IncomingMessage, trusted: (address: string) => boolean): string {
  const peer = normalise(request.socket.remoteAddress ?? 'unknown');
  if (!trusted(peer)) return peer;
  const header = request.headers['x-forwarded-for'];
  const value = Array.isArray(header) ? header.join(',') : header;
  const last = value
    ?.split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .at(-1);
  return last && isIP(normalise(last)) !== 0 ? normalise(last) : peer;
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
