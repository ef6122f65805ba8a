// The record of refused clients on its own: keys, the wait an early retry earns, the address rule, the bound.
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

  it('lets on a client that waited, and one that retried early a few times; refuses one that kept at it', () => {
    const penalty = new RetryPenalty({ maxKeys: 100, maxPenaltyMs: 30_000, earlyRetriesAllowed: 8 });
    const a = addressKey('198.51.100.1');
    const t = tokenKey('Bearer x')!;
    penalty.refused(t, 1000, 0);
    expect(penalty.early(a, t, 1000)).toBe(0);
    penalty.refused(t, 1000, 2000);
    // Eight early retries within the Retry-After are let on; the ninth is refused, and each further one
    // waits the Retry-After it ignored, from then: no longer, however many it made.
    for (let i = 0; i < 8; i += 1) expect(penalty.early(a, t, 2100 + i)).toBe(0);
    const waits = Array.from({ length: 10 }, (_, i) => penalty.early(a, t, 2200 + i));
    expect(waits).toEqual(Array.from({ length: 10 }, () => 1000));
    // Once it waited that long, it is let on.
    expect(penalty.early(a, t, 2209 + 1000)).toBe(0);
  });

  it('never refuses a client that retries a few times a second while it is refused for overload', () => {
    // The reliability suite's players: after a 503 they pause 200 ms and click again, for as long as
    // the overload lasts.
    const penalty = new RetryPenalty({ maxKeys: 100, maxPenaltyMs: 30_000 });
    const a = addressKey('198.51.100.3');
    const t = tokenKey('Bearer impatient')!;
    for (let now = 0; now < 60_000; now += 200) {
      expect(penalty.early(a, t, now)).toBe(0);
      penalty.refused(t, 1000, now + 5);
    }
  });

  it('never refuses a client that honours every Retry-After, whatever its address did', () => {
    const penalty = new RetryPenalty({ maxKeys: 100, maxPenaltyMs: 30_000, addressClients: 1 });
    const a = addressKey('198.51.100.4');
    const rude = tokenKey('Bearer rude')!;
    penalty.refused(rude, 1000, 0);
    for (let i = 0; i < 20; i += 1) penalty.early(a, rude, 1 + i);
    // The address has a client caught; a newcomer on it that waits each Retry-After out is let on.
    const polite = tokenKey('Bearer newcomer')!;
    for (let now = 100; now < 20_000; now += 1000) {
      expect(penalty.early(a, polite, now)).toBe(0);
      penalty.refused(polite, 1000, now);
    }
  });

  it('takes the allowance from unproven tokens of an address that had several clients caught', () => {
    const penalty = new RetryPenalty({ maxKeys: 100, maxPenaltyMs: 30_000, addressClients: 3 });
    const a = addressKey('198.51.100.2');
    const catchOne = (name: string, at: number) => {
      const t = tokenKey(`Bearer ${name}`)!;
      penalty.refused(t, 1000, at);
      for (let i = 0; i < 9; i += 1) penalty.early(a, t, at + 1 + i);
      expect(penalty.early(a, t, at + 20)).toBeGreaterThan(0);
    };
    // Before: a fresh token gets its eight early retries.
    const fresh = tokenKey('Bearer fresh')!;
    penalty.refused(fresh, 1000, 0);
    expect(penalty.early(a, fresh, 1)).toBe(0);
    for (const name of ['bad-1', 'bad-2', 'bad-3']) catchOne(name, 100);
    // After three caught: another unproven token is refused at its first early retry...
    const another = tokenKey('Bearer another')!;
    penalty.refused(another, 1000, 200);
    expect(penalty.early(a, another, 201)).toBeGreaterThan(0);
    // ...while a neighbour whose clicks the game counted before keeps its allowance.
    const neighbour = tokenKey('Bearer neighbour')!;
    penalty.accepted(neighbour);
    penalty.refused(neighbour, 1000, 200);
    for (let i = 0; i < 8; i += 1) expect(penalty.early(a, neighbour, 201 + i)).toBe(0);
    // Another address is not concerned.
    const elsewhere = tokenKey('Bearer elsewhere')!;
    penalty.refused(elsewhere, 1000, 200);
    expect(penalty.early(addressKey('198.51.100.99'), elsewhere, 201)).toBe(0);
  });

  it('forgets a record once its client waited and was accepted', () => {
    const penalty = new RetryPenalty({ maxKeys: 100, maxPenaltyMs: 30_000 });
    const a = addressKey('198.51.100.5');
    const t = tokenKey('Bearer y')!;
    penalty.refused(t, 1000, 0);
    for (let i = 0; i < 8; i += 1) penalty.early(a, t, 1 + i);
    penalty.accepted(t, 1000);
    expect(penalty.knows(t)).toBe(false);
    penalty.refused(t, 1000, 1020);
    for (let i = 0; i < 8; i += 1) expect(penalty.early(a, t, 1021 + i)).toBe(0);
  });

  it('keeps counting a client accepted before its Retry-After ran out (a per-second limit that refills)', () => {
    const penalty = new RetryPenalty({ maxKeys: 100, maxPenaltyMs: 30_000 });
    const a = addressKey('198.51.100.6');
    const t = tokenKey('Bearer z')!;
    // Held to 20 a second, resending at once: refused, then one accepted between the refusals.
    penalty.refused(t, 1000, 0);
    let caught = 0;
    for (let i = 1; i <= 40; i += 1) {
      if (penalty.early(a, t, i * 10) > 0) caught = i;
      if (caught) break;
      if (i % 5 === 0) penalty.accepted(t, i * 10);
      else penalty.refused(t, 1000, i * 10);
    }
    expect(caught).toBe(9);
  });

  it('forgets the least recently refused past its bound', () => {
    const penalty = new RetryPenalty({ maxKeys: 50, maxPenaltyMs: 30_000 });
    for (let i = 0; i < 10_000; i += 1) penalty.refused(tokenKey(`Bearer t${i}`)!, 1000, 0);
    expect(penalty.size).toBe(50);
    expect(penalty.knows(tokenKey('Bearer t9999')!)).toBe(true);
    expect(penalty.knows(tokenKey('Bearer t0')!)).toBe(false);
  });
});
