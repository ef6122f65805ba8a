// One helper names the budget an address draws on, for every per-address limit: an IPv4 address is its
// own, an IPv6 address shares its /64 (one subscriber's prefix: a host picks any of 2^64 addresses in it).
import { describe, expect, it } from 'vitest';
import { addressBudgetKey } from '../src/address-budget.js';

describe('addressBudgetKey', () => {
  it('keeps an IPv4 address whole, also when written as IPv4-mapped IPv6', () => {
    expect(addressBudgetKey('203.0.113.7')).toBe('203.0.113.7');
    expect(addressBudgetKey('203.0.113.8')).toBe('203.0.113.8');
    expect(addressBudgetKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(addressBudgetKey('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  it('groups IPv6 addresses by their /64, however they are written', () => {
    const key = addressBudgetKey('2001:db8:1:2::1');
    expect(key).toBe('2001:db8:1:2::/64');
    for (const same of [
      '2001:db8:1:2:ffff:ffff:ffff:ffff',
      '2001:0db8:0001:0002:0000:0000:0000:0009',
      '2001:DB8:1:2:a:b:c:d',
      '2001:db8:1:2::1%eth0',
      '2001:db8:1:2:0:0:1.2.3.4',
    ])
      expect(addressBudgetKey(same), same).toBe(key);
    expect(addressBudgetKey('2001:db8:1:3::1')).not.toBe(key);
    expect(addressBudgetKey('::1')).toBe('0:0:0:0::/64');
    expect(addressBudgetKey('fe80::1')).toBe('fe80:0:0:0::/64');
  });

  it('leaves anything that is not an address as it is', () => {
    expect(addressBudgetKey('')).toBe('');
    expect(addressBudgetKey('unknown')).toBe('unknown');
  });
});
