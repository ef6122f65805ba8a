// Whom to believe about the caller's address: one setting (TRUST_PROXY) and one implementation
// (proxy-addr, as Fastify's own trustProxy) for the gateway and realtime. The setting names the proxies
// exactly: their addresses or CIDRs, `loopback` (a proxy on the same host), or a hop count. Broad names
// (`uniquelocal`, `linklocal`) and `true` are refused: they trusted every private-range peer (any pod of
// the cluster) to write the address that every per-address budget keys on.
import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import proxyAddr from '@fastify/proxy-addr';
import { z } from 'zod';

/** false: trust no one; a number: believe that many nearest hops; a list: believe these proxies. */
export type TrustProxy = false | number | string[];
export type TrustFunction = (address: string, hop: number) => boolean;

const LOOPBACK = ['127.0.0.1/8', '::1/128'];

function validEntry(entry: string): boolean {
  if (entry === 'loopback') return true;
  const [address, bits, ...rest] = entry.split('/');
  if (rest.length > 0 || !address || isIP(address) === 0) return false;
  const max = isIP(address) === 4 ? 32 : 128;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= max);
}

/** TRUST_PROXY's schema; `fallback` when unset (the gateway: false; realtime: loopback, its local gateway). */
export const trustProxySetting = (fallback = 'false') =>
  z
    .string()
    .default(fallback)
    .transform((value, ctx): TrustProxy => {
      const v = value.trim();
      if (['false', '0', 'no', ''].includes(v)) return false;
      if (/^\d{1,2}$/.test(v)) return Number(v);
      const list = v
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const broad = list.find((s) => ['true', 'yes', 'uniquelocal', 'linklocal'].includes(s));
      if (broad) {
        ctx.addIssue({
          code: 'custom',
          message: `"${broad}" trusts far more than the proxy in front: name its exact addresses or CIDRs (or loopback, or a hop count)`,
        });
        return z.NEVER;
      }
      if (list.every(validEntry)) return list;
      ctx.addIssue({
        code: 'custom',
        message: 'must be false, a hop count, or addresses/CIDRs (or loopback) separated by commas',
      });
      return z.NEVER;
    });

/** The trust function proxy-addr (and Fastify's trustProxy) takes. */
export function compileTrust(trust: TrustProxy): TrustFunction {
  if (trust === false) return () => false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return proxyAddr.compile(trust.flatMap((entry) => (entry === 'loopback' ? LOOPBACK : [entry])));
}

/** The caller's address: the peer's, or the nearest address a trusted proxy saw (X-Forwarded-For). */
export function clientAddress(request: IncomingMessage, trust: TrustFunction): string {
  return proxyAddr(request, trust);
}
