// Who is on a socket: a token in the handshake (auth.token, or an Authorization: Bearer header) is
// verified with auth's public key; a bad one, or one of an ended session, is refused at connect; none
// makes a guest.
import type { AccessTokenClaims } from '@omc/contracts';
import { createTokenVerifier } from '@omc/service-kit';

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
  /** Why a verified token is refused all the same (its session was ended), or undefined. */
  refusal: (claims: AccessTokenClaims) => string | undefined = () => undefined,
): Promise<(handshake: Handshake) => Promise<Viewer>> {
  // service-kit's verifier, as every route uses it: several keys while one is rotated, the kid picks.
  const verify = createTokenVerifier(publicKeyPem);
  return async (handshake) => {
    const token = handshakeToken(handshake);
    if (token === undefined) return { kind: 'guest' };
    let claims: AccessTokenClaims;
    try {
      claims = await verify(token);
    } catch (error) {
      throw new HandshakeRefused((error as Error).message);
    }
    const refused = refusal(claims);
    if (refused) throw new HandshakeRefused(refused);
    return { kind: 'user', claims };
  };
}
