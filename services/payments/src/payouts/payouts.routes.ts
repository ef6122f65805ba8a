import {
  CollectResponse,
  ConfirmPayoutEmailRequest,
  ERROR_CODE,
  INTERNAL_HOUSE_PAYOUT_PATH,
  INTERNAL_PAYOUT_EMAIL_TOKEN_PATH,
  InternalHousePayout,
  InternalPayoutEmailToken,
  InternalPayoutEmailTokenParams,
  MessageResponse,
  PAYOUT_EMAIL_PENDING_MESSAGE,
  SetPaymentMethodRequest,
  type InternalAccount,
} from '@omc/contracts';
import { AppError, authenticate, authorityOf, callerOf, freshAuthority } from '@omc/service-kit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { PaymentsContext } from '../context.js';
import { currentAccount } from '../users/account-check.js';

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
 * The house pot paid out, once two admins agreed in auth (services/auth/src/approvals): auth alone may
 * call it (INTERNAL_ROUTES) and states the requesting admin's account as it has it now. The same collect
 * as a winner's: a confirmed payout email, a positive balance, one payout of the house at a time.
 */
export async function internalHousePayoutRoutes(app: FastifyInstance, ctx: PaymentsContext): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .post(
      INTERNAL_HOUSE_PAYOUT_PATH,
      { schema: { body: InternalHousePayout, response: { 200: CollectResponse } } },
      async (request) => {
        const { userId, role, emailVerified, securityEpoch, approvalId } = request.body;
        request.log.info({ approvalId, userId }, 'house payout approved by two admins');
        return ctx.payouts.collect({ userId, role, emailVerified, securityEpoch }, 'house');
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
