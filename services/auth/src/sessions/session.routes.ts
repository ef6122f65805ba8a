// Refresh and logout: the only routes that receive the refresh cookie (its path is /api/user/refresh).
// Neither needs an Authorization header; SameSite=Strict keeps other sites from sending the cookie. Logout
// also ends the session of an access token sent with it, so a client without its cookie can still end it.
import { ACCOUNT_SUSPENDED, RefreshResponse, suspendedMessage } from '@omc/contracts';
import { MessageResponse } from '@omc/contracts';
import { AppError, unauthorized } from '@omc/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ignoreJsonBody } from '../body-less.js';
import type { AuthContext } from '../context.js';
import { signedIn } from '../users/current-user.js';
import { findUserById } from '../users/users.repo.js';
import { clearRefreshCookie, setRefreshCookie } from './cookie.js';
import { endSession } from './end-sessions.js';
import { endSessionOfToken, REFRESH_COOKIE, rotateRefreshToken } from './refresh-tokens.js';

const suspended = (reason: string | null) => new AppError(ACCOUNT_SUSPENDED, 401, suspendedMessage(reason));

/**
 * The session a bearer token names, when the token counts on auth's own routes (the signedIn check);
 * otherwise null (none sent, bad, expired or already refused): logout then rests on the cookie alone.
 */
async function sessionOfBearer(
  ctx: AuthContext,
  request: FastifyRequest,
): Promise<{ userId: string; sessionId: string } | null> {
  if (!request.headers.authorization) return null;
  try {
    await signedIn(ctx)(request);
  } catch (error) {
    // A refused token; a store that failed is a failure of logout as of any other route.
    if (error instanceof AppError && error.statusCode < 500) return null;
    throw error;
  }
  return { userId: request.user.sub, sessionId: request.user.sid! };
}

export async function sessionRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  ignoreJsonBody(scope);
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { config, counters } = ctx.deps;

  app.post(
    '/api/user/refresh',
    { schema: { response: { 200: RefreshResponse } } },
    async (request, reply) => {
      const presented = request.cookies[REFRESH_COOKIE];
      if (!presented) {
        counters.refreshes.inc({ outcome: 'missing' });
        throw unauthorized('No session to refresh; please log in');
      }
      const result = await rotateRefreshToken(
        ctx.deps.db,
        presented,
        ctx.deps.clock(),
        {
          ttlSeconds: config.REFRESH_TTL_SECONDS,
          reuseGraceMs: config.REFRESH_REUSE_GRACE_MS,
        },
        { ip: request.ip },
      );
      if (result.kind === 'invalid' && result.endedFor) {
        // A session a suspension ended: the player is told why, not only that it ended.
        const owner = await findUserById(ctx.deps.db, result.endedFor);
        if (owner?.suspended_at) {
          counters.refreshes.inc({ outcome: 'suspended' });
          clearRefreshCookie(reply, config);
          throw suspended(owner.suspended_reason);
        }
      }
      if (result.kind === 'invalid' || result.kind === 'reused') {
        counters.refreshes.inc({ outcome: result.kind });
        if (result.kind === 'reused') {
          request.log.warn('rotated refresh token presented again; its session is ended');
          ctx.relay.notify();
        }
        clearRefreshCookie(reply, config);
        throw unauthorized(
          result.kind === 'reused'
            ? 'This session was ended for your security; please log in again'
            : 'Session expired; please log in again',
        );
      }
      const user = await findUserById(ctx.deps.db, result.userId);
      if (!user) {
        clearRefreshCookie(reply, config);
        throw unauthorized('This account no longer exists');
      }
      if (user.suspended_at) {
        clearRefreshCookie(reply, config);
        throw suspended(user.suspended_reason);
      }
      if (result.kind === 'rotated') setRefreshCookie(reply, config, result.token);
      counters.refreshes.inc({ outcome: result.kind });
      return { token: ctx.signAccessToken(user, result.familyId) };
    },
  );

  app.post(
    '/api/user/refresh/logout',
    { schema: { response: { 200: MessageResponse } } },
    async (request, reply) => {
      const presented = request.cookies[REFRESH_COOKIE];
      const bearerSession = await sessionOfBearer(ctx, request);
      const now = ctx.deps.clock();
      // The session ends everywhere: its access tokens too, not only the cookie's chain.
      const endedByCookie = presented ? await endSessionOfToken(ctx.deps.db, presented, now) : false;
      const endedByToken = bearerSession
        ? await endSession(ctx.deps.db, bearerSession.userId, bearerSession.sessionId, now)
        : false;
      if (endedByCookie || endedByToken) ctx.relay.notify();
      clearRefreshCookie(reply, config);
      return { message: 'Logged out' };
    },
  );
}
