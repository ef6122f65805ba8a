// Authority read fresh: an admin or money route decides on what auth's database says of the caller now
// (role, suspension, session), never on the token's claims alone, which may be 15 minutes old. One hook
// for every such route of every service; each service says how it asks (auth reads its own database,
// the others ask auth's GET /internal/account).
import type { Role } from '@omc/contracts';
import type { FastifyRequest } from 'fastify';
import { forbidden } from './errors.js';

/** What the source of truth says of the caller now. */
export interface CurrentAuthority {
  userId: string;
  role: Role;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's account as auth has it now, set by freshAuthority (a service's own richer shape). */
    authority?: CurrentAuthority;
  }
}

/**
 * Asks the source of truth for the caller's account; rejects (401, 403 or 503 with the reason) when the
 * account is gone, suspended, its session ended or its token predates a security event.
 */
export type AuthorityLookup<A extends CurrentAuthority> = (request: FastifyRequest) => Promise<A>;

/**
 * onRequest hook, after the tree's authentication: asks `lookup` and, given a role, requires it of the
 * answer. Handlers read the answer with `authorityOf(request)`.
 */
export function freshAuthority<A extends CurrentAuthority>(
  lookup: AuthorityLookup<A>,
  options: { role?: Role } = {},
): (request: FastifyRequest) => Promise<void> {
  return async function freshAuthorityHook(request) {
    const authority = await lookup(request);
    if (options.role && authority.role !== options.role)
      throw forbidden(options.role === 'admin' ? 'Admin only' : `Requires role ${options.role}`);
    request.authority = authority;
  };
}

/** The caller's current account, as the route tree's freshAuthority hook read it. */
export function authorityOf<A extends CurrentAuthority = CurrentAuthority>(request: FastifyRequest): A {
  if (!request.authority) throw new Error('freshAuthority did not run on this route');
  return request.authority as A;
}
