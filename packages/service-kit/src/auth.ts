// Access tokens: EdDSA JWTs that only services/auth signs; every service verifies them with the public
// key. alg none, another algorithm, a wrong key, a tampered or expired token: 401.
import fastifyJwt from '@fastify/jwt';
import { AccessTokenClaims, type Role } from '@omc/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, forbidden, unauthorized } from './errors.js';

declare module '@fastify/jwt' {
  interface FastifyJWT {
    payload: Omit<AccessTokenClaims, 'exp' | 'iat'> & { exp?: number; iat?: number };
    user: AccessTokenClaims;
  }
}

export const ACCESS_TOKEN_ALGORITHM = 'EdDSA';
export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60;

export interface TokenKeys {
  publicKey: string;
  /** Only services/auth has it. */
  privateKey?: string;
}

export async function registerTokens(app: FastifyInstance, keys: TokenKeys): Promise<void> {
  await app.register(fastifyJwt, {
    secret: keys.privateKey ? { private: keys.privateKey, public: keys.publicKey } : { public: keys.publicKey },
    sign: { algorithm: ACCESS_TOKEN_ALGORITHM, expiresIn: ACCESS_TOKEN_TTL_SECONDS },
    verify: { algorithms: [ACCESS_TOKEN_ALGORITHM] },
    formatUser: (payload) => payload as AccessTokenClaims,
  });
}

function hasBearer(request: FastifyRequest): boolean {
  const header = request.headers.authorization;
  return typeof header === 'string' && header.length > 0;
}

async function verify(request: FastifyRequest): Promise<AccessTokenClaims> {
  const header = request.headers.authorization ?? '';
  if (!/^Bearer [A-Za-z0-9._~+/=-]+$/.test(header)) throw unauthorized('Authorization header must be "Bearer <token>"');
  try {
    await request.jwtVerify();
  } catch (error) {
    const code = (error as { code?: string }).code ?? '';
    throw unauthorized(code.includes('EXPIRED') ? 'Token expired' : 'Invalid token');
  }
  const claims = AccessTokenClaims.safeParse(request.user);
  if (!claims.success) throw unauthorized('Invalid token');
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

export function requireRole(claims: AccessTokenClaims, role: Role, currentRole?: Role): void {
  // The current role from the service's own records wins over the token's (it may be minutes old).
  if ((currentRole ?? claims.role) !== role) throw forbidden(role === 'admin' ? 'Admin only' : `Requires role ${role}`);
}

export { AppError };
