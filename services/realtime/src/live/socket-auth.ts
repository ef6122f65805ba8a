// Who is on a socket: a token in the handshake (auth.token, or an Authorization: Bearer header) is
// verified with auth's public key; a bad one is refused at connect; none makes a guest.
import { AccessTokenClaims } from '@omc/contracts';
import { ACCESS_TOKEN_ALGORITHM, publicKeySelector } from '@omc/service-kit';
import { importSPKI, jwtVerify, type CryptoKey, type JWTHeaderParameters } from 'jose';

export type Viewer = { kind: 'guest' } | { kind: 'user'; claims: AccessTokenClaims };

export class HandshakeRefused extends Error {}

export interface Handshake {
  auth: Record<string, unknown>;
  headers: Record<string, string | string[] | undefined>;
}

export function handshakeToken(handshake: Handshake): string | undefined {
  const fromAuth = handshake.auth?.token;
  if (typeof fromAuth === 'string' && fromAuth.length > 0) return fromAuth.replace(/^Bearer /, '');
  if (fromAuth !== undefined && fromAuth !== null && typeof fromAuth !== 'string')
    throw new HandshakeRefused('auth.token must be a string');
  const header = handshake.headers.authorization;
  if (typeof header === 'string' && header.length > 0) {
    if (!/^Bearer [A-Za-z0-9._~+/=-]+$/.test(header))
      throw new HandshakeRefused('Authorization header must be "Bearer <token>"');
    return header.slice('Bearer '.length);
  }
  return undefined;
}

export async function createViewerResolver(
  publicKeyPem: string,
): Promise<(handshake: Handshake) => Promise<Viewer>> {
  // Several keys while one is being rotated: the token's kid picks its key.
  const select = publicKeySelector(publicKeyPem);
  const imported = new Map<string, Promise<CryptoKey>>();
  const key = (header: JWTHeaderParameters): Promise<CryptoKey> => {
    const pem = select(header.kid);
    if (!pem) return Promise.reject(new HandshakeRefused('Invalid token'));
    if (!imported.has(pem)) imported.set(pem, importSPKI(pem, ACCESS_TOKEN_ALGORITHM));
    return imported.get(pem)!;
  };
  return async (handshake) => {
    const token = handshakeToken(handshake);
    if (token === undefined) return { kind: 'guest' };
    let payload: unknown;
    try {
      ({ payload } = await jwtVerify(token, key, { algorithms: [ACCESS_TOKEN_ALGORITHM] }));
    } catch (error) {
      throw new HandshakeRefused(
        (error as { code?: string }).code === 'ERR_JWT_EXPIRED' ? 'Token expired' : 'Invalid token',
      );
    }
    const claims = AccessTokenClaims.safeParse(payload);
    if (!claims.success) throw new HandshakeRefused('Invalid token');
    return { kind: 'user', claims: claims.data };
  };
}
