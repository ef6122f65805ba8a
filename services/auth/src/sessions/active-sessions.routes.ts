// GET /api/user/sessions, DELETE /api/user/sessions/:id, DELETE /api/user/sessions (all others).
import {
  MessageResponse,
  MessageWithTokenResponse,
  SessionIdParams,
  SessionsResponse,
  type AccessTokenClaims,
} from '@omc/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ignoreJsonBody } from '../body-less.js';
import type { AuthContext } from '../context.js';
import { accountOf, signedIn } from '../users/current-user.js';

/** The session the access token was issued for. */
const sessionOf = (request: FastifyRequest): string | undefined =>
  (request.user as AccessTokenClaims | undefined)?.sid;

export async function activeSessionRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  ignoreJsonBody(scope);
  scope.addHook('onRequest', signedIn(ctx));
  const app = scope.withTypeProvider<ZodTypeProvider>();

  app.get('/api/user/sessions', { schema: { response: { 200: SessionsResponse } } }, async (request) => ({
    sessions: await ctx.activeSessions.listSessions(accountOf(request).id, sessionOf(request)),
  }));

  app.delete(
    '/api/user/sessions/:id',
    { schema: { params: SessionIdParams, response: { 200: MessageResponse } } },
    async (request) => {
      await ctx.activeSessions.endSession(accountOf(request).id, request.params.id);
      return { message: 'Session ended' };
    },
  );

  app.delete(
    '/api/user/sessions',
    { schema: { response: { 200: MessageWithTokenResponse } } },
    async (request) => {
      // The hook refused tokens without a session, so there is one.
      const { ended, token } = await ctx.activeSessions.endOtherSessions(
        accountOf(request),
        sessionOf(request)!,
        request.ip,
      );
      return { message: ended === 1 ? '1 other session ended' : `${ended} other sessions ended`, token };
    },
  );
}
