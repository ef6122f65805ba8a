// Email-verification tokens: signed (HMAC-SHA256 under a key derived from auth's signing key), bound to
// the account and the address, with an expiry. Nothing is stored: a token is single-use because it only
// verifies the address it names while that address is the account's and not yet verified.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

export interface VerificationClaims {
  userId: string;
  email: string;
  expiresAt: number;
}

export function verificationKey(privateKeyPem: string): Buffer {
  return createHash('sha256').update('omc email verification v1\n').update(privateKeyPem).digest();
}

export function signVerification(key: Buffer, claims: VerificationClaims): string {
  const body = Buffer.from(
    JSON.stringify({ u: claims.userId, e: claims.email.toLowerCase(), x: claims.expiresAt }),
  ).toString('base64url');
  const mac = createHmac('sha256', key).update(body).digest('base64url');
  return `${body}.${mac}`;
}

/** The claims of a token this key signed, or null for anything else (forged, altered, malformed). */
export function readVerification(key: Buffer, token: string): VerificationClaims | null {
  const [body, mac, extra] = token.split('.');
  if (!body || !mac || extra !== undefined) return null;
  const expected = createHmac('sha256', key).update(body).digest();
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  try {
    const parsed = JSON.parse(Buffer.from(body, 'base64url').toString()) as {
      u?: unknown;
      e?: unknown;
      x?: unknown;
    };
    if (typeof parsed.u !== 'string' || typeof parsed.e !== 'string' || typeof parsed.x !== 'number')
      return null;
    return { userId: parsed.u, email: parsed.e, expiresAt: parsed.x };
  } catch {
    return null;
  }
}
