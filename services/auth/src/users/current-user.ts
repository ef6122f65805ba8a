import { ACCOUNT_SUSPENDED, suspendedMessage } from '@omc/contracts';
import { AppError, requireUser, unauthorized } from '@omc/service-kit';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../context.js';
import { findAccountWithSession } from '../sessions/sessions.repo.js';
import type { UserRow } from './users.repo.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's account, loaded by the route tree's onRequest hook (before the body is validated). */
    account: UserRow | null;
    /** When the caller's session signed in with a password (its `auth_time`): recent enough re-authenticates. */
    signedInAt: Date | null;
  }
}

export const SESSION_ENDED = 'This session has ended; please sign in again';
export const SECURITY_CHANGED =
  'Your account had a security change (password, email or sign-out everywhere) since this session signed in; please sign in again';

/**
 * onRequest hook of a route tree for signed-in callers: the token proves who they are, the database says
 * what they may do now, and whether the token still counts: its session (refresh family) not ended and
 * its security version the account's current one. One query, so the check costs one round trip.
 */
export const signedIn = (ctx: AuthContext) =>
  async function loadAccount(request: FastifyRequest): Promise<void> {
    const claims = await requireUser(request);
    request.user = claims;
    // A token without a session or a version was signed before sessions could end: refused.
    if (!claims.sid || claims.sv === undefined) throw unauthorized(SESSION_ENDED);
    const row = await findAccountWithSession(ctx.deps.db, claims.sub, claims.sid);
    if (!row) throw unauthorized('This account no longer exists');
    const { session_live, signed_in_at, ...user } = row;
    // Before the session checks: a suspension ended the sessions too, and its reason is what to tell.
    if (user.suspended_at)
      throw new AppError(ACCOUNT_SUSPENDED, 401, suspendedMessage(user.suspended_reason));
    if (user.security_version !== claims.sv) throw unauthorized(SECURITY_CHANGED);
    if (!session_live) throw unauthorized(SESSION_ENDED);
    request.account = user;
    request.signedInAt = signed_in_at ?? null;
  };

/** The role on record, for requireRole: it wins over the token's, which may be minutes old. */
export const recordedRole = (request: FastifyRequest) => accountOf(request).role;

/** The account loaded by the hook. */
export function accountOf(request: FastifyRequest): UserRow {
  if (!request.account) throw unauthorized();
  return request.account;
}
