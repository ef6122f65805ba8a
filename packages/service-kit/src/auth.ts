// Access tokens: EdDSA JWTs that only services/auth signs; every service verifies them with the public
// key. alg none, another algorithm, a wrong key, a tampered or expired token: 401.
import { createHash, createPrivateKey, createPublicKey } from 'node:crypto';
import fastifyJwt from '@fastify/jwt';
import { createVerifier } from 'fast-jwt';
import { AccessTokenClaims, type Role } from '@omc/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, forbidden, unauthorized } from './errors.js';
import { VerifiedTokens } from './verified-tokens.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** Tokens this app verified (registerTokens), taken on trust until they expire or for 5 minutes. */
    verifiedTokens: VerifiedTokens;
  }
}

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: Omit<AccessTokenClaims, 'exp' | 'iat'> & { exp?: number; iat?: number };
    user: AccessTokenClaims;
  }
}

export const ACCESS_TOKEN_ALGORITHM = 'EdDSA';
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;
/** Verified tokens kept per process (verified-tokens.ts). */
const VERIFIED_TOKENS_CACHED = 20_000;
const VERIFIED_TOKENS_TTL_MS = 5 * 60_000;

export interface TokenKeys {
  /** One public key, or several PEM blocks one after the other while a key is being rotated. */
  publicKey: string;
  /** Only services/auth has it. */
  privateKey?: string;
}

/** The PEM blocks of a JWT_PUBLIC_KEY value (several during a key rotation). */
export function parsePublicKeys(pem: string): string[] {
  return pem.match(/-----BEGIN PUBLIC KEY-----[\s\S]+?-----END PUBLIC KEY-----/g) ?? [];
}

/** A key's id: the `kid` auth puts in each token's header, so verifiers pick the right key. */
export function keyId(publicKeyPem: string): string {
  const der = createPublicKey(publicKeyPem).export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('base64url').slice(0, 16);
}

/**
 * Public keys by id. A token names its key in `kid`; one without a kid (older tokens) is checked
 * against the first key. A kid we do not know is refused.
 */
export function publicKeySelector(publicKeyPem: string): (kid: string | undefined) => string | undefined {
  const keys = parsePublicKeys(publicKeyPem);
  if (keys.length === 0) throw new Error('JWT_PUBLIC_KEY holds no PEM public key');
  const byId = new Map(keys.map((key) => [keyId(key), key]));
  return (kid) => (kid === undefined ? keys[0] : byId.get(kid));
}

/**
 * Verifies a token outside an HTTP request (a websocket handshake): the same algorithm, key choice by
 * kid and cache as the routes. Resolves to the claims; rejects with a 401 AppError ('Token expired' or
 * 'Invalid token').
 */
export function createTokenVerifier(publicKeyPem: string): (token: string) => Promise<AccessTokenClaims> {
  const select = publicKeySelector(publicKeyPem);
  const verifier = createVerifier({
    key: async ({ header }: { header: { kid?: string } }) => {
      const key = select(header.kid);
      if (!key) throw unauthorized('Invalid token');
      return key;
    },
    algorithms: [ACCESS_TOKEN_ALGORITHM],
  });
  const verified = new VerifiedTokens(VERIFIED_TOKENS_CACHED, VERIFIED_TOKENS_TTL_MS);
  return async (token) => {
    const known = verified.get(token);
    if (known) return known;
    let payload: unknown;
    try {
      payload = await verifier(token);
    } catch (error) {
      const code = (error as { code?: string }).code ?? '';
      throw unauthorized(code.includes('EXPIRED') ? 'Token expired' : 'Invalid token');
    }
    const claims = AccessTokenClaims.safeParse(payload);
    if (!claims.success) throw unauthorized('Invalid token');
    verified.set(token, claims.data);
    return claims.data;
  };
}

/** The kid in the header of a bearer token, read before verifying it (it only chooses the key). */
function tokenKid(authorization: string | undefined): string | undefined {
  const header = authorization?.startsWith('Bearer ') ? authorization.slice(7).split('.')[0] : undefined;
  if (!header) return undefined;
  try {
    const kid = (JSON.parse(Buffer.from(header, 'base64url').toString()) as { kid?: unknown }).kid;
    return typeof kid === 'string' ? kid : undefined;
  } catch {
    return undefined;
  }
}

export async function registerTokens(app: FastifyInstance, keys: TokenKeys): Promise<void> {
  const select = publicKeySelector(keys.publicKey);
  const verifyKey = async (request: FastifyRequest) => {
    const key = select(tokenKid(request.headers.authorization));
    if (!key) throw unauthorized('Invalid token');
    return key;
  };
  const listed = parsePublicKeys(keys.publicKey);
  const publicKeys = listed.length === 1 ? listed[0]! : verifyKey;
  const signingKid = keys.privateKey
    ? keyId(
        createPublicKey(createPrivateKey(keys.privateKey)).export({ type: 'spki', format: 'pem' }).toString(),
      )
    : undefined;
  await app.register(fastifyJwt, {
    // One key: given as it is (app.jwt.verify stays synchronous). Several (a rotation): chosen by kid.
    secret: keys.privateKey ? { private: keys.privateKey, public: publicKeys } : { public: publicKeys },
    sign: {
      algorithm: ACCESS_TOKEN_ALGORITHM,
      expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      ...(signingKid ? { kid: signingKid } : {}),
    },
    // A verified token is kept by verify() below (verified-tokens.ts), which asks this only for new ones.
    verify: { algorithms: [ACCESS_TOKEN_ALGORITHM] },
    formatUser: (payload) => payload as AccessTokenClaims,
  } as Parameters<typeof fastifyJwt>[1]);
  app.decorate('verifiedTokens', new VerifiedTokens(VERIFIED_TOKENS_CACHED, VERIFIED_TOKENS_TTL_MS));
}

function hasBearer(request: FastifyRequest): boolean {
  const header = request.headers.authorization;
  return typeof header === 'string' && header.length > 0;
}

async function verify(request: FastifyRequest): Promise<AccessTokenClaims> {
  const header = request.headers.authorization ?? '';
  if (!/^Bearer [A-Za-z0-9._~+/=-]+$/.test(header))
    throw unauthorized('Authorization header must be "Bearer <token>"');
  const token = header.slice('Bearer '.length);
  const known = request.server.verifiedTokens.get(token);
  if (known) return known;
  try {
    await request.jwtVerify();
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    throw unauthorized(code.includes('EXPIRED') ? 'Token expired' : 'Invalid token');
  }
  const claims = AccessTokenClaims.safeParse(request.user);
  if (!claims.success) throw unauthorized('Invalid token');
  request.server.verifiedTokens.set(token, claims.data);
  return claims.data;
}

/** The caller's verified claims, or 401. */
export async function requireUser(request: FastifyRequest): Promise<AccessTokenClaims> {
  if (!hasBearer(request)) throw unauthorized('Authentication required');
  return verify(request);
}

/** The caller's claims when a token is sent (a bad one is still 401), or null for a guest. */
export async function optionalUser(request: FastifyRequest): Promise<AccessTokenClaims | null> {
  return hasBearer(request) ? verify(request) : null;
}

/**
 * onRequest hook for a route tree whose every route needs a signed-in caller: a guest gets 401 before
 * any body is read, and handlers find the verified claims in `request.user`.
 */
export async function authenticate(request: FastifyRequest): Promise<void> {
  request.user = await requireUser(request);
}

/** onRequest hook for routes open to guests: a token, when sent, must be valid (else 401). */
export async function authenticateIfPresent(request: FastifyRequest): Promise<void> {
  const claims = await optionalUser(request);
  if (claims) request.user = claims;
}

/**
 * A hook for the routes that need a role, after the tree's authentication hook. `current` gives the
 * caller's role from the service's own records, which wins over the token's (it may be minutes old).
 */
export function requireRole(
  role: Role,
  current?: (request: FastifyRequest) => Role | Promise<Role>,
): (request: FastifyRequest) => Promise<void> {
  return async function requireRoleHook(request) {
    const actual = current ? await current(request) : request.user.role;
    if (actual !== role) throw forbidden(role === 'admin' ? 'Admin only' : `Requires role ${role}`);
  };
}

export { AppError };
