// The caller's address as the gateway trusts it (TRUST_PROXY), for rate limits and X-Forwarded-For, also
// for websocket upgrades that never reach Fastify's routing.
import type { IncomingMessage } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';

export type TrustProxy = boolean | string[];

export function trustFunction(trust: TrustProxy): (address: string, hop: number) => boolean {
  if (trust === true) return () => true;
  if (trust === false) return () => false;
  return proxyAddr.compile(trust);
}

export function clientAddress(
  request: IncomingMessage,
  trust: (address: string, hop: number) => boolean,
): string {
  return proxyAddr(request, trust);
}
