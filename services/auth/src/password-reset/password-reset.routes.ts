// POST /api/user/forgot-password and /api/user/reset-password: for guests, so no sign-in hook.
import {
  FORGOT_PASSWORD_MESSAGE,
  ForgotPasswordRequest,
  MessageResponse,
  ResetPasswordRequest,
} from '@omc/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { AuthContext } from '../context.js';

export async function passwordResetRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/api/user/forgot-password',
    { schema: { body: ForgotPasswordRequest, response: { 202: MessageResponse } } },
    async (request, reply) => {
      await ctx.passwordReset.requestPasswordReset(request.body.email, request.ip);
      return reply.status(202).send({ message: FORGOT_PASSWORD_MESSAGE });
    },
  );

  app.post(
    '/api/user/reset-password',
    { schema: { body: ResetPasswordRequest, response: { 200: MessageResponse } } },
    async (request) => {
      await ctx.passwordReset.resetPassword(request.body.token, request.body.newPassword, request.ip);
      return { message: 'Password updated; every session has been signed out. Please sign in.' };
    },
  );
}
