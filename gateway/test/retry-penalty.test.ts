// The record of refused clients on its own: keys, growth of the wait, the address rule, the bound.
import { describe, expect, it } from 'vitest';
import { addressKey, RetryPenalty, tokenKey } from '../src/edge/retry-penalty.js';

describe('retry penalty', () => {
  it('groups IPv6 addresses by /64 and keeps IPv4 (also when mapped) as is', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey('2001:0db8:0001:0002::9')).toBe(addressKey('2001:db8:1:2::'));
    expect(addressKey('::ffff:203.0.113.7')).toBe(addressKey('203.0.113.7'));
    expect(addressKey('203.0.113.7')).not.toBe(addressKey('203.0.113.8'));
  });

  it('lets on a client that waited, refuses one that did not, with a growing and bounded wait', () => {
    const penalty = new RetryPenalty({ maxKeys: 100, maxPenaltyMs: 30_000 });
    const a = addressKey('198.51.100.1');
    const t = tokenKey('Bearer x');
    penalty.refused(a, t, 1000, 0);
    expect(penalty.early(a, t, 1000)).toBe(0);
    penalty.refused(a, t, 1000, 2000);
    const waits = Array.from({ length: 10 }, (_, i) => penalty.early(a, t, 2100 + i));
    expect(waits[0]).toBeGreaterThan(900);
    for (let i = 1; i < waits.length; i += 1) expect(waits[i]).toBeGreaterThanOrEqual(waits[i - 1]!);
    expect(Math.max(...waits)).toBeLessThanOrEqual(30_000);
  });

  it('refuses an address only after it retried early again and again, then whatever token it sends', () => {
    const penalty = new RetryPenalty({ maxKeys: 100, maxPenaltyMs: 30_000, addressStrikes: 3 });
    const a = addressKey('198.51.100.2');
    penalty.refused(a, tokenKey('Bearer bad'), 1000, 0);
    expect(penalty.early(a, tokenKey('Bearer neighbour'), 1)).toBe(0);
    expect(penalty.early(a, tokenKey('Bearer fresh'), 1)).toBe(0);
    for (let i = 0; i < 3; i += 1) expect(penalty.early(a, tokenKey('Bearer bad'), 2 + i)).toBeGreaterThan(0);
    expect(penalty.early(a, tokenKey('Bearer fresh'), 10)).toBeGreaterThan(0);
    expect(penalty.early(a, undefined, 10)).toBeGreaterThan(0);
    // A neighbour whose clicks the game counted before is not refused for the address's record.
    penalty.accepted(tokenKey('Bearer neighbour'));
    expect(penalty.early(a, tokenKey('Bearer neighbour'), 11)).toBe(0);
  });

  it('forgets the least recently refused past its bound', () => {
    const penalty = new RetryPenalty({ maxKeys: 50, maxPenaltyMs: 30_000 });
    for (let i = 0; i < 10_000; i += 1)
      penalty.refused(addressKey(`10.0.${i >> 8}.${i & 255}`), undefined, 1000, 0);
    expect(penalty.size).toBe(50);
    expect(penalty.early(addressKey('10.0.39.15'), undefined, 1)).toBeGreaterThan(0);
    expect(penalty.early(addressKey('10.0.0.0'), undefined, 1)).toBe(0);
  });
});
