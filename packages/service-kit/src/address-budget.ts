// The budget an address draws on, for every per-address limit (requests, registrations, logins, resets,
// clicks, sockets): an IPv4 address is its own; an IPv6 address shares its /64, because one subscriber
// (a home, a phone, a server) gets a whole /64 and picks any of its 2^64 addresses at will. Keyed by the
// full IPv6 address, one host had unlimited budgets.
import { isIPv4, isIPv6 } from 'node:net';

const MAPPED_V4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/** The eight 16-bit groups of an IPv6 address (zone dropped, an embedded IPv4 tail as two groups). */
function groups(address: string): number[] {
  let text = address.split('%')[0]!.toLowerCase();
  const v4 = /(\d{1,3}(?:\.\d{1,3}){3})$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4[1]!.split('.').map(Number) as [number, number, number, number];
    text = `${text.slice(0, -v4[1]!.length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [left, right] = text.split('::') as [string, string | undefined];
  const head = left ? left.split(':') : [];
  const tail = right ? right.split(':') : [];
  const fill = right === undefined ? 0 : 8 - head.length - tail.length;
  return [...head, ...Array<string>(fill).fill('0'), ...tail].map((g) => parseInt(g, 16));
}

/** `203.0.113.7` → itself; `2001:db8:1:2::9` → `2001:db8:1:2::/64`; anything else unchanged. */
export function addressBudgetKey(address: string): string {
  if (isIPv4(address)) return address;
  const mapped = MAPPED_V4.exec(address);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1]!;
  if (!isIPv6(address)) return address;
  return `${groups(address)
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}
