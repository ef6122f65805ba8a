// /api/user/*: each route validates with the contract's schema and calls the accounts service.
import {
  CHANGE_EMAIL_PENDING_MESSAGE,
  ChangeEmailRequest,
  ChangeLanguageRequest,
  ChangePasswordRequest,
  ChangeUsernameRequest,
  LoginRequest,
  LoginResponse,
  MessageResponse,
  MessageWithTokenResponse,
  PROFILE_PARTS_ACCOUNT,
  PROFILE_PARTS_HEADER,
  ProfileResponse,
  RegisterRequest,
  RegisterResponse,
} from '@omc/contracts';
import { callerOf } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ignoreJsonBody } from '../body-less.js';
import type { AuthContext } from '../context.js';
import { clearRefreshCookie, setRefreshCookie } from '../sessions/cookie.js';
import { accountOf, signedIn } from './current-user.js';

export async function userRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { config } = ctx.deps;

  app.post(
    '/api/user/register',
    { schema: { body: RegisterRequest, response: { 201: RegisterResponse } } },
    async (request, reply) => {
      const signedIn = await ctx.accounts.register(request.body, request.ip, request.headers['user-agent']);
      setRefreshCookie(reply, config, signedIn.refreshToken);
      const { verificationMailIn: wait } = signedIn;
      const message =
        wait === undefined
          ? 'Registration successful'
          : `Registration successful. The verification mail was not sent: this address was mailed too often. Ask for it again from your profile in ${wait} seconds.`;
      return reply.status(201).send({ token: signedIn.accessToken, message });
    },
  );

  app.post(
    '/api/user/login',
    { schema: { body: LoginRequest, response: { 200: LoginResponse } } },
    async (request, reply) => {
      const signedIn = await ctx.accounts.login(request.body, request.ip, request.headers['user-agent']);
      setRefreshCookie(reply, config, signedIn.refreshToken);
      return {
        token: signedIn.accessToken,
        preferredLanguage: signedIn.user.preferred_language,
        message: 'Login successful',
      };
    },
  );

  await scope.register(accountRoutes, ctx);
}

/** The signed-in caller's own account: every route here loads it first. */
async function accountRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  scope.addHook('onRequest', signedIn(ctx));
  const app = scope.withTypeProvider<ZodTypeProvider>();
  const { config } = ctx.deps;

  app.get('/api/user/profile', { schema: { response: { 200: ProfileResponse } } }, async (request) => {
    const user = accountOf(request);
    // The gateway asks game and payments itself: the account's own fields are all it needs from here.
    const accountOnly = request.headers[PROFILE_PARTS_HEADER] === PROFILE_PARTS_ACCOUNT;
    return ctx.accounts.profile(user, callerOf(request), { accountOnly });
  });

  app.put(
    '/api/user/change-language',
    { schema: { body: ChangeLanguageRequest, response: { 200: MessageResponse } } },
    async (request) => {
      const user = accountOf(request);
      await ctx.accounts.changeLanguage(user, request.body.language);
      return { message: 'Language updated' };
    },
  );

  app.put(
    '/api/user/change-email',
    { schema: { body: ChangeEmailRequest, response: { 200: MessageResponse } } },
    async (request) => {
      // The original client's answer, { message }: the email changes only once the new address confirms.
      const user = accountOf(request);
      const { email, currentPassword } = request.body;
      if (email !== user.email)
        await ctx.accounts.requireRecentAuth(user, request.signedInAt, currentPassword, request.ip);
      const outcome = await ctx.emailChange.requestEmailChange(user, email, request.ip);
      return { message: outcome === 'pending' ? CHANGE_EMAIL_PENDING_MESSAGE : 'Email updated' };
    },
  );

  app.put(
    '/api/user/change-password',
    { schema: { body: ChangePasswordRequest, response: { 200: MessageWithTokenResponse } } },
    async (request) => {
      const user = accountOf(request);
      // The hook refused tokens without a session, so there is one.
      const token = await ctx.accounts.changePassword(
        user,
        request.user.sid!,
        request.body.currentPassword,
        request.body.newPassword,
        request.ip,
      );
      return { message: 'Password updated; other sessions have been signed out', token };
    },
  );

  app.put(
    '/api/user/change-username',
    { schema: { body: ChangeUsernameRequest, response: { 200: MessageResponse } } },
    async (request) => {
      const user = accountOf(request);
      await ctx.accounts.changeUsername(user, request.body.username);
      return { message: 'Username updated' };
    },
  );

  // No body: a client that sends Content-Type: application/json with an empty one is not refused for it.
  await app.register(async (child) => {
    ignoreJsonBody(child);
    const scoped = child.withTypeProvider<ZodTypeProvider>();
    scoped.delete(
      '/api/user/delete-account',
      { schema: { response: { 200: MessageResponse } } },
      async (request, reply) => {
        const user = accountOf(request);
        await ctx.accounts.deleteAccount(user, callerOf(request));
        clearRefreshCookie(reply, config);
        return { message: 'Account deleted' };
      },
    );
  });
}
