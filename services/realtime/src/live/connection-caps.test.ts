import type { IncomingMessage } from 'node:http';
import { compileTrust } from '@omc/service-kit';
import { describe, expect, it } from 'vitest';
import { configSchema } from '../config.js';
import { clientAddress } from './connection-caps.js';

const request = (peer: string, forwarded?: string) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwarded ? { 'x-forwarded-for': forwarded } : {},
  }) as unknown as IncomingMessage;

describe('the client address behind a proxy', () => {
  it("takes TRUST_PROXY in the gateway's words: exact proxies, loopback or a hop count, never a broad range", () => {
    const parse = (v: string) => compileTrust(configSchema.shape.TRUST_PROXY.parse(v));
    expect(parse('loopback')('::ffff:127.0.0.1', 0)).toBe(true);
    expect(parse('loopback')('10.4.0.7', 0)).toBe(false);
    expect(parse('false')('127.0.0.1', 0)).toBe(false);
    expect(parse('198.51.100.0/24')('198.51.100.9', 0)).toBe(true);
    expect(parse('198.51.100.0/24')('198.51.101.9', 0)).toBe(false);
    expect(parse('1')('10.4.0.7', 0)).toBe(true);
    expect(parse('1')('10.4.0.7', 1)).toBe(false);
    expect(configSchema.shape.TRUST_PROXY.parse(undefined)).toEqual(['loopback']);
    for (const broad of ['uniquelocal', 'linklocal', 'true', '10.0.0.1,uniquelocal', 'bogus']) {
      const parsed = configSchema.shape.TRUST_PROXY.safeParse(broad);
      expect(parsed.success, broad).toBe(false);
    }
    expect(configSchema.shape.TRUST_PROXY.safeParse('uniquelocal').error?.issues[0]?.message).toMatch(
      /exact addresses or CIDRs/,
    );
  });

  it("believes the nearest proxy's entry from a trusted peer only, and keys IPv6 by its /64", () => {
    const trusted = compileTrust(['loopback']);
    expect(clientAddress(request('127.0.0.1', '6.6.6.6, 203.0.113.5'), trusted)).toBe('203.0.113.5');
    expect(clientAddress(request('198.51.100.3', '203.0.113.5'), trusted)).toBe('198.51.100.3');
    expect(clientAddress(request('127.0.0.1', 'not-an-address'), trusted)).toBe('127.0.0.1');
    expect(clientAddress(request('127.0.0.1'), trusted)).toBe('127.0.0.1');
    expect(clientAddress(request('127.0.0.1', '2001:db8:9:9::77'), trusted)).toBe('2001:db8:9:9::/64');
  });
});
