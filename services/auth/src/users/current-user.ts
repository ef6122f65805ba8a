import { requireUser, unauthorized } from '@omc/service-kit';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../context.js';
import { findUserById, type UserRow } from './users.repo.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's account, loaded by the route tree's onRequest hook (before the body is validated). */
    account: UserRow | null;
  }
}

/**
 * onRequest hook of a route tree for signed-in callers: the token proves who they are, the database says
 * what they may do now. A guest is told to sign in (401) before any body is looked at.
 */
export const signedIn = (ctx: AuthContext) =>
  async function loadAccount(request: FastifyRequest): Promise<void> {
    const claims = await requireUser(request);
    request.user = claims;
    const user = await findUserById(ctx.deps.db, claims.sub);
    if (!user) throw unauthorized('This account no longer exists');
    request.account = user;
  };

/** The role on record, for requireRole: it wins over the token's, which may be minutes old. */
export const recordedRole = (request: FastifyRequest) => accountOf(request).role;

/** The account loaded by the hook. */
export function accountOf(request: FastifyRequest): UserRow {
  if (!request.account) throw unauthorized();
  return request.account;
}
