// POST /api/user/confirm-email (from the link mailed to the new address) and
// POST /api/user/undo-email-change (from the notice mailed to the old one): the link is the proof, so a
// guest may use them; signed in as another account, they are refused.
import {
  ConfirmEmailChangeRequest,
  MessageResponse,
  UndoEmailChangeRequest,
  type AccessTokenClaims,
} from '@omc/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../context.js';

async function callerIdOf(request: FastifyRequest): Promise<string | undefined> {
  if (!request.headers.authorization) return undefined;
  await request.jwtVerify().catch(() => undefined);
  return (request.user as AccessTokenClaims | undefined)?.sub;
}

export async function emailChangeRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/api/user/confirm-email',
    { schema: { body: ConfirmEmailChangeRequest, response: { 200: MessageResponse } } },
    async (request) => {
      const email = await ctx.emailChange.confirmEmailChange(
        request.body.token,
        await callerIdOf(request),
        request.ip,
      );
      return { message: `Email changed: your account now uses ${email}` };
    },
  );

  app.post(
    '/api/user/undo-email-change',
    { schema: { body: UndoEmailChangeRequest, response: { 200: MessageResponse } } },
    async (request) => {
      const email = await ctx.emailChange.undoEmailChange(
        request.body.token,
        await callerIdOf(request),
        request.ip,
      );
      return {
        message: `Email change undone: your account uses ${email} again. Every session has been signed out; sign in again, and choose a new password if you did not ask for the change.`,
      };
    },
  );
}
