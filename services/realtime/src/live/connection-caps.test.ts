import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../config.js';
import { clientAddress, trustedPeer } from './connection-caps.js';

const request = (peer: string, forwarded?: string) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwarded ? { 'x-forwarded-for': forwarded } : {},
  }) as unknown as IncomingMessage;

describe('the client address behind a proxy', () => {
  it("takes TRUST_PROXY in the gateway's words, Kubernetes' shared uniquelocal included", () => {
    const parse = (v: string) => trustedPeer(configSchema.shape.TRUST_PROXY.parse(v));
    expect(parse('uniquelocal')('10.4.0.7')).toBe(true);
    expect(parse('uniquelocal')('127.0.0.1')).toBe(false);
    expect(parse('loopback')('::ffff:127.0.0.1')).toBe(true);
    expect(parse('false')('127.0.0.1')).toBe(false);
    expect(parse('198.51.100.0/24')('198.51.100.9')).toBe(true);
    expect(configSchema.shape.TRUST_PROXY.safeParse('bogus').success).toBe(false);
  });

  it("believes the nearest proxy's entry from a trusted peer only", () => {
    const trusted = trustedPeer(['loopback']);
    expect(clientAddress(request('127.0.0.1', '6.6.6.6, 203.0.113.5'), trusted)).toBe('203.0.113.5');
    expect(clientAddress(request('198.51.100.3', '203.0.113.5'), trusted)).toBe('198.51.100.3');
    expect(clientAddress(request('127.0.0.1', 'not-an-address'), trusted)).toBe('127.0.0.1');
    expect(clientAddress(request('127.0.0.1'), trusted)).toBe('127.0.0.1');
  });
});
