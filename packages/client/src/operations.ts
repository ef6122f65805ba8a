// Every public operation, named for an integrator and typed by the catalogue's own schemas. The test
// beside it checks that this table and ROUTES (packages/contracts) name the same routes with the very
// same schema objects, so the client cannot drift from what the servers validate.
import * as c from '@omc/contracts';
import type { z } from 'zod';

export type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface Operation<
  R extends z.ZodType = z.ZodType,
  B extends z.ZodType | undefined = z.ZodType | undefined,
  Q extends z.ZodType | undefined = z.ZodType | undefined,
  P extends z.ZodType | undefined = z.ZodType | undefined,
> {
  method: Method;
  path: string;
  response: R;
  body: B;
  query: Q;
  params: P;
  /** The body is sent form-encoded (the provider's webhook) rather than as JSON. */
  form?: boolean;
  /** Sends the refresh cookie (login, register, refresh, logout). */
  credentials?: boolean;
}

function op<
  R extends z.ZodType,
  B extends z.ZodType | undefined = undefined,
  Q extends z.ZodType | undefined = undefined,
  P extends z.ZodType | undefined = undefined,
>(
  method: Method,
  path: string,
  parts: { response: R; body?: B; query?: Q; params?: P; form?: boolean; credentials?: boolean },
): Operation<R, B, Q, P> {
  return {
    method,
    path,
    response: parts.response,
    body: parts.body as B,
    query: parts.query as Q,
    params: parts.params as P,
    form: parts.form,
    credentials: parts.credentials,
  };
}

const withCookie = { credentials: true };

export const operations = {
  login: op('POST', '/api/user/login', { body: c.LoginRequest, response: c.LoginResponse, ...withCookie }),
  register: op('POST', '/api/user/register', {
    body: c.RegisterRequest,
    response: c.RegisterResponse,
    ...withCookie,
  }),
  refresh: op('POST', '/api/user/refresh', { response: c.RefreshResponse, ...withCookie }),
  logout: op('POST', '/api/user/refresh/logout', { response: c.MessageResponse, ...withCookie }),
  profile: op('GET', '/api/user/profile', { response: c.ProfileResponse }),
  changeLanguage: op('PUT', '/api/user/change-language', {
    body: c.ChangeLanguageRequest,
    response: c.MessageResponse,
  }),
  changeEmail: op('PUT', '/api/user/change-email', {
    body: c.ChangeEmailRequest,
    response: c.MessageResponse,
  }),
  changePassword: op('PUT', '/api/user/change-password', {
    body: c.ChangePasswordRequest,
    response: c.MessageWithTokenResponse,
    ...withCookie,
  }),
  changeUsername: op('PUT', '/api/user/change-username', {
    body: c.ChangeUsernameRequest,
    response: c.MessageResponse,
  }),
  deleteAccount: op('DELETE', '/api/user/delete-account', { response: c.MessageResponse }),
  forgotPassword: op('POST', '/api/user/forgot-password', {
    body: c.ForgotPasswordRequest,
    response: c.MessageResponse,
  }),
  resetPassword: op('POST', '/api/user/reset-password', {
    body: c.ResetPasswordRequest,
    response: c.MessageResponse,
  }),
  verifyEmail: op('POST', '/api/user/verify-email', {
    body: c.VerifyEmailRequest,
    response: c.MessageResponse,
  }),
  confirmEmail: op('POST', '/api/user/confirm-email', {
    body: c.ConfirmEmailChangeRequest,
    response: c.MessageResponse,
  }),
  undoEmailChange: op('POST', '/api/user/undo-email-change', {
    body: c.UndoEmailChangeRequest,
    response: c.MessageResponse,
  }),
  resendVerification: op('POST', '/api/user/resend-verification', { response: c.MessageResponse }),
  sessions: op('GET', '/api/user/sessions', { response: c.SessionsResponse }),
  endOtherSessions: op('DELETE', '/api/user/sessions', { response: c.MessageWithTokenResponse }),
  endSession: op('DELETE', '/api/user/sessions/:id', {
    params: c.SessionIdParams,
    response: c.MessageResponse,
  }),
  adminUsers: op('GET', '/api/admin/users', { query: c.AdminUsersQuery, response: c.AdminUsersAnswer }),
  suspendUser: op('POST', '/api/admin/users/:id/suspend', {
    params: c.UserIdParams,
    body: c.SuspendRequest,
    response: c.SuspensionResponse,
  }),
  restoreUser: op('POST', '/api/admin/users/:id/restore', {
    params: c.UserIdParams,
    body: c.RestoreRequest,
    response: c.SuspensionResponse,
  }),
  audit: op('GET', '/api/admin/audit', { query: c.AuditQuery, response: c.AuditPage }),
  updateRole: op('POST', '/api/admin/updateRole', { body: c.UpdateRoleRequest, response: c.MessageResponse }),
  gameState: op('GET', '/api/game/state', { response: c.GameStateResponse }),
  rules: op('GET', '/api/game/rules', { response: c.GameRules }),
  gameProfile: op('GET', '/api/game/profile', { response: c.GameProfile }),
  click: op('POST', '/api/game/click', { response: c.ClickResponse }),
  winners: op('GET', '/api/winners', { query: c.WinnersQuery, response: c.WinnersResponse }),
  clientToken: op('GET', '/api/payments/token', { response: c.ClientTokenResponse }),
  paymentsProfile: op('GET', '/api/payments/profile', { response: c.PaymentsProfile }),
  checkout: op('POST', '/api/payments/checkout', { body: c.CheckoutRequest, response: c.CheckoutResponse }),
  setPaymentMethod: op('POST', '/api/winners/setPaymentMethod', {
    body: c.SetPaymentMethodRequest,
    response: c.MessageResponse,
  }),
  confirmPayoutEmail: op('POST', '/api/winners/confirm-payout-email', {
    body: c.ConfirmPayoutEmailRequest,
    response: c.MessageResponse,
  }),
  collect: op('POST', '/api/winners/collect', { response: c.CollectResponse }),
  adminCollect: op('POST', '/api/admin/collect', { response: c.CollectResponse }),
  refundPurchase: op('POST', '/api/admin/purchases/:id/refund', {
    params: c.PurchaseIdParams,
    body: c.RefundRequest,
    response: c.RefundResponse,
  }),
  playerPurchases: op('GET', '/api/admin/purchases', {
    query: c.PlayerMoneyQuery,
    response: c.AdminPurchasesPage,
  }),
  playerPayouts: op('GET', '/api/admin/payouts', { query: c.PlayerMoneyQuery, response: c.AdminPayoutsPage }),
  braintreeWebhook: op('POST', '/api/payments/webhooks/braintree', {
    body: c.BraintreeWebhookRequest,
    response: c.BraintreeWebhookResponse,
    form: true,
  }),
} as const;
