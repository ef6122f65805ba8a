import { describe, expect, it } from 'vitest';
import {
  dueForRefresh,
  earliestExpiry,
  REFRESH_LEAD_MS,
  refreshCookieOf,
  tokenExpiresAt,
  tokensHeld,
} from './tokens.js';

/** A token shaped as auth signs them (the signature is not read here). */
const tokenExpiring = (expMs: number) =>
  [
    Buffer.from(JSON.stringify({ alg: 'EdDSA', typ: 'JWT' })).toString('base64url'),
    Buffer.from(JSON.stringify({ sub: 'u1', username: 'ld_1', exp: expMs / 1000 })).toString('base64url'),
    'signature',
  ].join('.');

const MINUTE = 60_000;
const T0 = Date.UTC(2026, 10, 29, 3, 0, 0);
/** An access token lives 15 minutes (ACCESS_TOKEN_TTL_SECONDS). */
const minted = (atMs: number) => tokenExpiring(atMs + 15 * MINUTE);

describe('a load token read as the web app reads it', () => {
  it('expires at its exp claim; an unreadable token has no expiry', () => {
    expect(tokenExpiresAt(minted(T0))).toBe(T0 + 15 * MINUTE);
    expect(tokenExpiresAt('not-a-token')).toBeNull();
    expect(tokenExpiresAt('a.@@@.c')).toBeNull();
    expect(tokenExpiresAt(`a.${Buffer.from('{"sub":"x"}').toString('base64url')}.c`)).toBeNull();
  });

  it('is due for refresh 5 minutes before expiry, as the web app refreshes it', () => {
    const token = minted(T0);
    expect(REFRESH_LEAD_MS).toBe(5 * MINUTE);
    expect(dueForRefresh(token, T0)).toBe(false);
    expect(dueForRefresh(token, T0 + 10 * MINUTE - 1)).toBe(false);
    expect(dueForRefresh(token, T0 + 10 * MINUTE)).toBe(true);
    expect(dueForRefresh('garbage', T0)).toBe(true);
  });

  it('minted once at the start of a run is stale for a scenario that starts 15 minutes in', () => {
    // The storm ran about 15 minutes into a whole run: a token from the run's start had expired.
    const fromStart = minted(T0);
    expect(dueForRefresh(fromStart, T0 + 15 * MINUTE)).toBe(true);
    // Minted right before the scenario, it is not.
    expect(dueForRefresh(minted(T0 + 15 * MINUTE), T0 + 15 * MINUTE)).toBe(false);
  });
});

describe('tokens held through a scenario', () => {
  it('takes the earliest expiry of all, none when any is unreadable', () => {
    expect(earliestExpiry([minted(T0 + MINUTE), minted(T0), minted(T0 + 2 * MINUTE)])).toBe(T0 + 15 * MINUTE);
    expect(earliestExpiry([minted(T0), 'garbage'])).toBeNull();
    expect(earliestExpiry([])).toBeNull();
  });

  it('holds when the scenario ended before the earliest expiry, and says by how much it did not', () => {
    const expiry = T0 + 15 * MINUTE;
    expect(tokensHeld(expiry, expiry - 1)).toEqual({ held: true });
    const late = tokensHeld(expiry, expiry + 30_000);
    expect(late.held).toBe(false);
    expect(late.reason).toContain('30 s past');
    expect(tokensHeld(null, T0).held).toBe(false);
  });
});

describe('the refresh cookie among Set-Cookie headers', () => {
  it('is the omc_refresh value, as a browser keeps it', () => {
    expect(
      refreshCookieOf([
        'other=1; Path=/',
        'omc_refresh=abc.def; Max-Age=604800; Path=/api/user/refresh; HttpOnly; SameSite=Strict',
      ]),
    ).toBe('abc.def');
  });

  it('is none when absent or cleared', () => {
    expect(refreshCookieOf([])).toBeUndefined();
    expect(refreshCookieOf(['omc_refresh=; Max-Age=0; Path=/api/user/refresh'])).toBeUndefined();
    expect(refreshCookieOf(['omc_refreshed=x'])).toBeUndefined();
  });
});
