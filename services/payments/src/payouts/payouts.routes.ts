import {
  CollectResponse,
  ConfirmPayoutEmailRequest,
  ERROR_CODE,
  INTERNAL_PAYOUT_EMAIL_TOKEN_PATH,
  InternalPayoutEmailToken,
  InternalPayoutEmailTokenParams,
  MessageResponse,
  PAYOUT_EMAIL_PENDING_MESSAGE,
  SetPaymentMethodRequest,
  type InternalAccount,
} from '@omc/contracts';
import { AppError, authenticate, authorityOf, callerOf, freshAuthority, requireRole } from '@omc/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PaymentsContext } from '../context.js';
import { currentAccount } from '../users/account-check.js';
import { recordInAuditLog } from '../users/audit-trail.js';

export async function payoutRoutes(app: FastifyInstance, ctx: PaymentsContext): Promise<void> {
  const { payouts, accounts, payoutEmail } = ctx;
  app.addHook('onRequest', authenticate);
  // Money moves on auth's account of the caller now, not on the token's claims.
  app.addHook('onRequest', freshAuthority(currentAccount(accounts)));
  const account = (request: FastifyRequest) => authorityOf<InternalAccount>(request);
  const typed = app.withTypeProvider<ZodTypeProvider>();

  typed.post(
    '/api/winners/setPaymentMethod',
    { schema: { body: SetPaymentMethodRequest, response: { 200: MessageResponse } } },
    async (request) => {
      const caller = callerOf(request);
      const { paypalEmail, currentPassword } = request.body;
      await payoutEmail.request(account(request), caller, {
        paypalEmail,
        ...(currentPassword === undefined ? {} : { currentPassword }),
        ip: request.ip,
      });
      // The original client's 200 and { message }: the message says where the confirmation went.
      return { message: PAYOUT_EMAIL_PENDING_MESSAGE };
    },
  );

  typed.post('/api/winners/collect', { schema: { response: { 200: CollectResponse } } }, async (request) => {
    return payouts.collect(account(request), 'winnings');
  });

  const admin = { onRequest: requireRole('admin', (request) => account(request).role) };
  typed.post(
    '/api/admin/collect',
    { ...admin, schema: { response: { 200: CollectResponse } } },
    async (request) => {
      const caller = callerOf(request);
      const paid = await payouts.collect(account(request), 'house');
      const { AUTH_URL, AUTH_TIMEOUT_MS } = ctx.deps.config;
      const audit = { authUrl: AUTH_URL, timeoutMs: AUTH_TIMEOUT_MS, credentials: ctx.deps.credentials };
      await recordInAuditLog(audit, caller, {
        action: 'house.collected',
        detail: {
          transactionId: paid.transactionId,
          ...(paid.amount === undefined ? {} : { amount: paid.amount }),
        },
        ip: request.ip,
      });
      return paid;
    },
  );
}

/** Opened from the link mailed to the account's email, maybe on a device that is not signed in: no token. */
export async function payoutEmailConfirmRoutes(app: FastifyInstance, ctx: PaymentsContext): Promise<void> {
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.post(
    '/api/winners/confirm-payout-email',
    { schema: { body: ConfirmPayoutEmailRequest, response: { 200: MessageResponse } } },
    async (request) => {
      const paypalEmail = await ctx.payoutEmail.confirm(request.body.token);
      return { message: `PayPal email confirmed: winnings are paid to ${paypalEmail}` };
    },
  );
}

/**
 * Auth's mailer, as the confirm mail leaves: the link's token, minted now (its hash replaces the one
 * before). Not reachable through the gateway (no public prefix is /internal); auth alone may call it
 * (its service credential, INTERNAL_ROUTES). 410 when the request may no longer be confirmed: auth drops the mail.
 */
export async function internalPayoutEmailRoutes(app: FastifyInstance, ctx: PaymentsContext): Promise<void> {
  app.withTypeProvider<ZodTypeProvider>().post(
    INTERNAL_PAYOUT_EMAIL_TOKEN_PATH,
    {
      schema: {
        params: InternalPayoutEmailTokenParams,
        response: { 200: InternalPayoutEmailToken },
      },
    },
    async (request) => {
      const token = await ctx.payoutEmail.mintToken(request.params.requestId);
      if (token === undefined)
        throw new AppError(ERROR_CODE.GONE, 410, 'This payout email request may no longer be confirmed');
      return { token };
    },
  );
}
