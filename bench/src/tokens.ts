// The load users' access tokens, kept valid as the web app keeps its own: each user holds its session's
// refresh cookie, and right before each scenario every user trades it for a new access token on
// POST /api/user/refresh (the rotated cookie is kept for the next time). An access token lives 15
// minutes; the web app refreshes 5 minutes before expiry, so a scenario starts only with tokens that
// have more than that left, and one that outlived its tokens is reported invalid, not measured.

/** Refresh this long before a token's expiry, as the web app does (web/src/session/token.ts). */
export const REFRESH_LEAD_MS = 5 * 60_000;
/** The refresh cookie auth sets (services/auth/src/sessions/refresh-tokens.ts). */
export const REFRESH_COOKIE = 'omc_refresh';

export interface TokenHolder {
  username: string;
  token: string;
  /** The session's refresh cookie (its value), as a browser keeps it. */
  refreshCookie?: string;
}

/** When the access token expires (ms since the epoch), from its `exp` claim; null when unreadable. */
export function tokenExpiresAt(token: string): number | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof claims.exp === 'number' && Number.isFinite(claims.exp) ? claims.exp * 1000 : null;
  } catch {
    return null;
  }
}

/** True when the web app would refresh this token by `nowMs`: within the lead of its expiry, or unreadable. */
export function dueForRefresh(token: string, nowMs: number, leadMs = REFRESH_LEAD_MS): boolean {
  const expiresAt = tokenExpiresAt(token);
  return expiresAt === null || expiresAt - leadMs <= nowMs;
}

/** The earliest expiry among the tokens (null: none readable, or no tokens). */
export function earliestExpiry(tokens: string[]): number | null {
  const known = tokens.map(tokenExpiresAt).filter((t): t is number => t !== null);
  return known.length === tokens.length && known.length > 0 ? Math.min(...known) : null;
}

/**
 * Whether a scenario's clients held valid tokens throughout: it ended before the earliest of the
 * tokens it started with expired. The reason, when not.
 */
export function tokensHeld(
  startExpiry: number | null,
  endedAtMs: number,
): { held: boolean; reason?: string } {
  if (startExpiry === null) return { held: false, reason: 'the load tokens had no readable expiry' };
  if (endedAtMs < startExpiry) return { held: true };
  return {
    held: false,
    reason: `the scenario ran past its load tokens' expiry (${Math.round((endedAtMs - startExpiry) / 1000)} s past)`,
  };
}

/** The refresh cookie's value among a response's Set-Cookie headers (undefined: none, or a cleared one). */
export function refreshCookieOf(setCookies: string[]): string | undefined {
  for (const header of setCookies) {
    const [pair] = header.split(';');
    const eq = pair?.indexOf('=') ?? -1;
    if (!pair || eq < 0 || pair.slice(0, eq).trim() !== REFRESH_COOKIE) continue;
    const value = pair.slice(eq + 1).trim();
    if (value !== '') return value;
  }
  return undefined;
}

/** One user's new access token, as the web app gets it: its refresh cookie on POST /api/user/refresh. */
async function refreshOne(gatewayUrl: string, user: TokenHolder): Promise<void> {
  if (!user.refreshCookie) throw new Error(`${user.username} has no refresh cookie to refresh with`);
  const response = await fetch(`${gatewayUrl}/api/user/refresh`, {
    method: 'POST',
    headers: { cookie: `${REFRESH_COOKIE}=${user.refreshCookie}` },
    signal: AbortSignal.timeout(20_000),
  });
  const text = await response.text();
  if (response.status !== 200)
    throw new Error(`refreshing ${user.username}'s token answered ${response.status}: ${text.slice(0, 200)}`);
  const { token } = JSON.parse(text) as { token?: unknown };
  if (typeof token !== 'string') throw new Error(`refreshing ${user.username}'s token gave no token`);
  user.token = token;
  user.refreshCookie = refreshCookieOf(response.headers.getSetCookie()) ?? user.refreshCookie;
}

/**
 * Gives every user a new access token (a few at a time), in place, and checks each has more than the
 * refresh lead left. Resolves to the earliest expiry among them.
 */
export async function mintFreshTokens(
  gatewayUrl: string,
  users: TokenHolder[],
  now: () => number = Date.now,
): Promise<number> {
  let next = 0;
  const lane = async () => {
    while (next < users.length) await refreshOne(gatewayUrl, users[next++]!);
  };
  await Promise.all(Array.from({ length: 8 }, lane));
  const stale = users.filter((u) => dueForRefresh(u.token, now()));
  if (stale.length > 0)
    throw new Error(`${stale.length} load tokens are due for refresh right after being minted`);
  const expiry = earliestExpiry(users.map((u) => u.token));
  if (expiry === null) throw new Error('a load token has no readable expiry');
  return expiry;
}
