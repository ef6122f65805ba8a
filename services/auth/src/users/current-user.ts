import { forbidden, requireUser, unauthorized } from '@omc/service-kit';
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../context.js';
import { findUserById, type UserRow } from './users.repo.js';

/** The caller's account as it is now: the token proves who they are, the database says what they may do. */
export async function currentUser(ctx: AuthContext, request: FastifyRequest): Promise<UserRow> {
  const claims = await requireUser(request);
  const user = await findUserById(ctx.deps.db, claims.sub);
  if (!user) throw unauthorized('This account no longer exists');
  return user;
}

export async function currentAdmin(ctx: AuthContext, request: FastifyRequest): Promise<UserRow> {
  const user = await currentUser(ctx, request);
  if (user.role !== 'admin') throw forbidden('Admin only');
  return user;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's account, loaded by the route's onRequest hook (before the body is validated). */
    account: UserRow | null;
  }
}

/** onRequest hooks: a guest is told to sign in (401) before any body is looked at. */
export const signedIn = (ctx: AuthContext) => async (request: FastifyRequest) => {
  request.account = await currentUser(ctx, request);
};

export const adminOnly = (ctx: AuthContext) => async (request: FastifyRequest) => {
  request.account = await currentAdmin(ctx, request);
};

/** The account loaded by the hook. */
export function accountOf(request: FastifyRequest): UserRow {
  if (!request.account) throw unauthorized();
  return request.account;
}
