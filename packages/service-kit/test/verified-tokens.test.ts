// The verified tokens kept by their text: until the token expires or for the TTL, whichever is first,
// at most `max` of them, the oldest dropped first.
import type { AccessTokenClaims } from '@omc/contracts';
import { describe, expect, it } from 'vitest';
import { VerifiedTokens } from '../src/verified-tokens.js';

const claims = (expS: number): AccessTokenClaims => ({
  sub: '00000000-0000-4000-8000-000000000001',
  username: 'ada',
  role: 'standard',
  iat: 0,
  exp: expS,
});

describe('verified tokens', () => {
  it('keeps a token until it expires or for the TTL, whichever comes first', () => {
    let now = 1_000_000;
    const tokens = new VerifiedTokens(10, 60_000, () => now);
    tokens.set('a', claims((now + 30_000) / 1000));
    tokens.set('b', claims((now + 600_000) / 1000));
    now += 29_999;
    expect(tokens.get('a')?.username).toBe('ada');
    now += 1;
    // Expired: no longer taken on trust (the verifier says "Token expired").
    expect(tokens.get('a')).toBeUndefined();
    expect(tokens.get('b')).toBeDefined();
    now += 30_000;
    // Past the TTL: verified again before it is trusted again.
    expect(tokens.get('b')).toBeUndefined();
  });

  it('does not keep a token that has expired already, nor any text it was not given', () => {
    const now = 1_000_000;
    const tokens = new VerifiedTokens(10, 60_000, () => now);
    tokens.set('old', claims(now / 1000 - 1));
    expect(tokens.get('old')).toBeUndefined();
    tokens.set('token', claims(now / 1000 + 60));
    expect(tokens.get('token ')).toBeUndefined();
    expect(tokens.get('toke')).toBeUndefined();
  });

  it('keeps at most max, dropping the oldest first', () => {
    const now = 1_000_000;
    const tokens = new VerifiedTokens(3, 60_000, () => now);
    for (const t of ['a', 'b', 'c', 'd']) tokens.set(t, claims(now / 1000 + 60));
    expect(tokens.size).toBe(3);
    expect(tokens.get('a')).toBeUndefined();
    expect(['b', 'c', 'd'].every((t) => tokens.get(t))).toBe(true);
  });
});
