// Internal routes for payments' payout email confirmation: no public prefix of the gateway reaches
// /internal, and the NetworkPolicies let only the named callers in.
import {
  INTERNAL_ACCOUNT_SECURITY_PATH,
  INTERNAL_PAYOUT_EMAIL_MAIL_PATH,
  InternalAccountSecurity,
  InternalPayoutEmailMail,
  MessageResponse,
} from '@omc/contracts';
import { notFound } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { AuthContext } from '../context.js';
import { accountOf, signedIn } from '../users/current-user.js';
import { findAccountSecurity } from '../users/users.repo.js';

/** With the player's own token: the session check, then the password or recent sign-in, then the mail. */
export async function payoutEmailMailRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  scope.addHook('onRequest', signedIn(ctx));
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.post(
    INTERNAL_PAYOUT_EMAIL_MAIL_PATH,
    { schema: { body: InternalPayoutEmailMail, response: { 200: MessageResponse } } },
    async (request) => {
      await ctx.payoutEmail.mailPayoutEmailConfirmation(accountOf(request), request.signedInAt, request.body);
      return { message: 'Mailed' };
    },
  );
}

/**
 * Without a player's token: the confirm link is opened from a mail, maybe on a device that is not signed
 * in. Says only the account's security epoch and whether it is suspended.
 */
export async function accountSecurityRoutes(scope: FastifyInstance, ctx: AuthContext): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    INTERNAL_ACCOUNT_SECURITY_PATH,
    {
      schema: {
        params: z.object({ userId: z.uuid({ error: 'userId must be a UUID' }) }),
        response: { 200: InternalAccountSecurity },
      },
    },
    async (request) => {
      const row = await findAccountSecurity(ctx.deps.db, request.params.userId);
      if (!row) throw notFound('No such account');
      return { userId: row.id, securityEpoch: row.security_epoch, suspended: row.suspended_at !== null };
    },
  );
}
