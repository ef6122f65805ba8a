// Reading the access token's claims in the browser: only to schedule refreshes and show who is signed
// in. The server verifies the signature; the browser never needs to.
import { AccessTokenClaims } from '@omc/contracts';

/** Refresh this long before the token's expiry (docs/client-contract.md). */
export const REFRESH_LEAD_MS = 5 * 60_000;

/** What the browser reads of a token: made once, on first use (a schema is costly to build). */
let readableClaims: ReturnType<typeof partialClaims> | null = null;
const partialClaims = () => AccessTokenClaims.partial({ sub: true, username: true, role: true });

export function decodeToken(token: string): AccessTokenClaims | null {
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const base64 = payload
      .replace(/-/g, '+')
      .replace(/_/g, '/')
      .padEnd(Math.ceil(payload.length / 4) * 4, '=');
    const json = new TextDecoder().decode(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)));
    readableClaims ??= partialClaims();
    const parsed = readableClaims.safeParse(JSON.parse(json));
    return parsed.success ? (parsed.data as AccessTokenClaims) : null;
  } catch {
    return null;
  }
}

/** `exp` is in seconds. A token without a readable exp counts as expired. */
export function isExpired(token: string, nowMs: number): boolean {
  const claims = decodeToken(token);
  return !claims || claims.exp * 1000 <= nowMs;
}

/** Milliseconds until the refresh is due: 5 minutes before exp, 0 when that moment has passed. */
export function refreshDelay(token: string, nowMs: number): number {
  const claims = decodeToken(token);
  if (!claims) return 0;
  return Math.max(0, claims.exp * 1000 - REFRESH_LEAD_MS - nowMs);
}
