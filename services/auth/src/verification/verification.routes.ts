// POST /api/user/verify-email (from the mailed link; a guest may use it) and
// POST /api/user/resend-verification (signed in).
import { MessageResponse, VerifyEmailRequest, type AccessTokenClaims } from '@omc/contracts';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ignoreJsonBody } from '../body-less.js';
import type { AuthContext } from '../context.js';
import { accountOf, signedIn } from '../users/current-user.js';

export async function verificationRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();

  app.post(
    '/api/user/verify-email',
    { schema: { body: VerifyEmailRequest, response: { 200: MessageResponse } } },
    async (request) => {
      // Signed in or not: the link is the proof. Signed in as someone else, it is refused.
      let callerId: string | undefined;
      if (request.headers.authorization) {
        await request.jwtVerify().catch(() => undefined);
        callerId = (request.user as AccessTokenClaims | undefined)?.sub;
      }
      await ctx.verification.verifyEmail(request.body.token, callerId);
      return { message: 'Email verified' };
    },
  );

  await app.register(async (child) => {
    ignoreJsonBody(child);
    child.addHook('onRequest', signedIn(ctx));
    child
      .withTypeProvider<ZodTypeProvider>()
      .post(
        '/api/user/resend-verification',
        { schema: { response: { 200: MessageResponse } } },
        async (request) => {
          await ctx.verification.resendVerification(accountOf(request).id, request.ip);
          return { message: 'A new verification link is on its way' };
        },
      );
  });
}
