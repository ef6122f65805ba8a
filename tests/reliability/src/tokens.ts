// Tokens an attacker can make: unsigned (alg none), signed with a key of their own, expired, tampered.
import { createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import { suite } from './context.js';

const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

function claims(overrides: Record<string, unknown> = {}) {
  const now = Math.floor(Date.now() / 1000);
  return { sub: randomUUID(), username: 'mallory', role: 'admin', iat: now, exp: now + 900, ...overrides };
}

/** `alg: none`, no signature: accepted only by a verifier that trusts the header. */
export function unsignedToken(overrides: Record<string, unknown> = {}): string {
  return `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims(overrides))}.`;
}

async function sign(privateKeyPem: string, payload: Record<string, unknown>): Promise<string> {
  return createSigner({ key: privateKeyPem, algorithm: 'EdDSA', noTimestamp: true })(payload);
}

/** Well formed and EdDSA-signed, but with a key the system never issued. */
export async function forgedToken(overrides: Record<string, unknown> = {}): Promise<string> {
  const { privateKey } = generateKeyPairSync('ed25519');
  return sign(privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), claims(overrides));
}

/** Signed with the system's real key (as auth would), for cases only the real key can build. */
export async function realToken(overrides: Record<string, unknown> = {}): Promise<string> {
  return sign(suite().keys.privateKey, claims(overrides));
}

/** A real token whose payload was edited afterwards (the signature no longer matches). */
export function tamperedToken(token: string, overrides: Record<string, unknown>): string {
  const [header, payload, signature] = token.split('.');
  const edited = { ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), ...overrides };
  return `${header}.${b64(edited)}.${signature}`;
}

/** HS256 signed with the public key as the HMAC secret: the classic algorithm-confusion attack. */
export async function confusedToken(overrides: Record<string, unknown> = {}): Promise<string> {
  // Built by hand: a JWT library refuses to use a public key as an HMAC secret, which is the point.
  const unsigned = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims(overrides))}`;
  return `${unsigned}.${createHmac('sha256', suite().keys.publicKey).update(unsigned).digest('base64url')}`;
}

export function tokenClaims(token: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
}
