// Every public route with its request and response schemas: the catalogue that contract and
// bad-input tests walk, so a new route is covered the day it is added here.
import type { z } from 'zod';
import * as admin from './admin.js';
import * as approvals from './approvals.js';
import * as auth from './auth.js';
import { MessageResponse } from './common.js';
import * as game from './game.js';
import * as payments from './payments.js';
import * as refunds from './refunds.js';

export type Service = 'auth' | 'game' | 'payments';

export interface RouteContract {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  service: Service;
  /** `providerSignature`: no user; the body carries the payment provider's signature (webhooks). */
  auth: 'none' | 'optional' | 'user' | 'admin' | 'refreshCookie' | 'providerSignature';
  /** What the body is sent as; JSON unless said otherwise. */
  bodyType?: 'json' | 'form';
  body?: z.ZodType;
  params?: z.ZodType;
  query?: z.ZodType;
  response: z.ZodType;
  /** The success statuses the answer comes with; 200 unless said otherwise. */
  successStatuses?: readonly (200 | 201 | 202)[];
}

export const ROUTES: readonly RouteContract[] = [
  {
    method: 'POST',
    path: '/api/user/login',
    service: 'auth',
    auth: 'none',
    body: auth.LoginRequest,
    response: auth.LoginResponse,
  },
  {
    method: 'POST',
    path: '/api/user/register',
    service: 'auth',
    auth: 'none',
    body: auth.RegisterRequest,
    response: auth.RegisterResponse,
    successStatuses: [201],
  },
  {
    method: 'POST',
    path: '/api/user/refresh',
    service: 'auth',
    auth: 'refreshCookie',
    response: auth.RefreshResponse,
  },
  // Under the refresh path, so the refresh cookie (Path=/api/user/refresh) reaches it and it can revoke the session.
  {
    method: 'POST',
    path: '/api/user/refresh/logout',
    service: 'auth',
    auth: 'refreshCookie',
    response: MessageResponse,
  },
  { method: 'GET', path: '/api/user/profile', service: 'auth', auth: 'user', response: auth.ProfileResponse },
  {
    method: 'PUT',
    path: '/api/user/change-language',
    service: 'auth',
    auth: 'user',
    body: auth.ChangeLanguageRequest,
    response: MessageResponse,
  },
  {
    method: 'PUT',
    path: '/api/user/change-email',
    service: 'auth',
    auth: 'user',
    body: auth.ChangeEmailRequest,
    response: MessageResponse,
  },
  {
    method: 'PUT',
    path: '/api/user/change-password',
    service: 'auth',
    auth: 'user',
    body: auth.ChangePasswordRequest,
    response: auth.MessageWithTokenResponse,
  },
  {
    method: 'PUT',
    path: '/api/user/change-username',
    service: 'auth',
    auth: 'user',
    body: auth.ChangeUsernameRequest,
    response: MessageResponse,
  },
  {
    method: 'DELETE',
    path: '/api/user/delete-account',
    service: 'auth',
    auth: 'user',
    response: MessageResponse,
  },
  {
    method: 'POST',
    path: '/api/user/forgot-password',
    service: 'auth',
    auth: 'none',
    body: auth.ForgotPasswordRequest,
    response: MessageResponse,
    successStatuses: [202],
  },
  {
    method: 'POST',
    path: '/api/user/reset-password',
    service: 'auth',
    auth: 'none',
    body: auth.ResetPasswordRequest,
    response: MessageResponse,
  },
  {
    method: 'POST',
    path: '/api/user/verify-email',
    service: 'auth',
    auth: 'none',
    body: auth.VerifyEmailRequest,
    response: MessageResponse,
  },
  {
    method: 'POST',
    path: '/api/user/confirm-email',
    service: 'auth',
    auth: 'none',
    body: auth.ConfirmEmailChangeRequest,
    response: MessageResponse,
  },
  {
    method: 'POST',
    path: '/api/user/undo-email-change',
    service: 'auth',
    auth: 'none',
    body: auth.UndoEmailChangeRequest,
    response: MessageResponse,
  },
  {
    method: 'POST',
    path: '/api/user/resend-verification',
    service: 'auth',
    auth: 'user',
    response: MessageResponse,
  },
  {
    method: 'GET',
    path: '/api/user/sessions',
    service: 'auth',
    auth: 'user',
    response: auth.SessionsResponse,
  },
  {
    method: 'DELETE',
    path: '/api/user/sessions',
    service: 'auth',
    auth: 'user',
    response: auth.MessageWithTokenResponse,
  },
  {
    method: 'DELETE',
    path: '/api/user/sessions/:id',
    service: 'auth',
    auth: 'user',
    params: auth.SessionIdParams,
    response: MessageResponse,
  },
  {
    method: 'GET',
    path: '/api/admin/users',
    service: 'auth',
    auth: 'admin',
    query: admin.AdminUsersQuery,
    response: admin.AdminUsersAnswer,
  },
  {
    method: 'POST',
    path: '/api/admin/users/:id/suspend',
    service: 'auth',
    auth: 'admin',
    params: admin.UserIdParams,
    body: admin.SuspendRequest,
    response: admin.SuspensionResponse,
  },
  {
    method: 'POST',
    path: '/api/admin/users/:id/restore',
    service: 'auth',
    auth: 'admin',
    params: admin.UserIdParams,
    body: admin.RestoreRequest,
    response: admin.SuspensionResponse,
  },
  {
    method: 'GET',
    path: '/api/admin/audit',
    service: 'auth',
    auth: 'admin',
    query: admin.AuditQuery,
    response: admin.AuditPage,
  },
  {
    method: 'POST',
    path: '/api/admin/updateRole',
    service: 'auth',
    auth: 'admin',
    body: approvals.UpdateRoleRequest,
    // 202 with the pending request when the grant needs a second admin (superuser, admin) and the
    // deployment has had two admins; otherwise made at once.
    response: approvals.UpdateRoleAnswer,
    successStatuses: [200, 202],
  },
  {
    method: 'GET',
    path: '/api/admin/approvals',
    service: 'auth',
    auth: 'admin',
    query: approvals.ApprovalsQuery,
    response: approvals.ApprovalsAnswer,
  },
  {
    method: 'POST',
    path: '/api/admin/approvals/:id/approve',
    service: 'auth',
    auth: 'admin',
    params: approvals.ApprovalIdParams,
    body: approvals.ApproveRequest,
    response: approvals.ApprovalDecision,
    // 202: a role granted that the game has not confirmed yet (its event brings it there).
    successStatuses: [200, 202],
  },
  {
    method: 'POST',
    path: '/api/admin/approvals/:id/refuse',
    service: 'auth',
    auth: 'admin',
    params: approvals.ApprovalIdParams,
    body: approvals.RefuseRequest,
    response: approvals.ApprovalDecision,
  },
  // Opens a house payout request (202); the payout is made when a second admin approves it.
  {
    method: 'POST',
    path: '/api/admin/collect',
    service: 'auth',
    auth: 'admin',
    body: approvals.AdminCollectRequest,
    // 200 with the payout (one admin), or 202 with the request a second admin decides.
    response: approvals.AdminCollectAnswer,
    successStatuses: [200, 202],
  },
  {
    method: 'GET',
    path: '/api/game/state',
    service: 'game',
    auth: 'optional',
    response: game.GameStateResponse,
  },
  { method: 'GET', path: '/api/game/rules', service: 'game', auth: 'none', response: game.GameRules },
  { method: 'GET', path: '/api/game/profile', service: 'game', auth: 'user', response: game.GameProfile },
  { method: 'POST', path: '/api/game/click', service: 'game', auth: 'user', response: game.ClickResponse },
  {
    method: 'GET',
    path: '/api/winners',
    service: 'game',
    auth: 'none',
    query: game.WinnersQuery,
    response: game.WinnersResponse,
  },
  {
    method: 'GET',
    path: '/api/payments/token',
    service: 'payments',
    auth: 'optional',
    response: payments.ClientTokenResponse,
  },
  {
    method: 'GET',
    path: '/api/payments/profile',
    service: 'payments',
    auth: 'user',
    response: payments.PaymentsProfile,
  },
  {
    method: 'POST',
    path: '/api/payments/checkout',
    service: 'payments',
    auth: 'user',
    body: payments.CheckoutRequest,
    response: payments.CheckoutResponse,
  },
  {
    method: 'POST',
    path: '/api/winners/setPaymentMethod',
    service: 'payments',
    auth: 'user',
    body: payments.SetPaymentMethodRequest,
    response: MessageResponse,
  },
  // Opened from the link mailed to the account's email, possibly on a device that is not signed in.
  {
    method: 'POST',
    path: '/api/winners/confirm-payout-email',
    service: 'payments',
    auth: 'none',
    body: payments.ConfirmPayoutEmailRequest,
    response: MessageResponse,
  },
  {
    method: 'POST',
    path: '/api/winners/collect',
    service: 'payments',
    auth: 'user',
    response: payments.CollectResponse,
  },
  {
    method: 'POST',
    path: '/api/admin/purchases/:id/refund',
    service: 'payments',
    auth: 'admin',
    params: refunds.PurchaseIdParams,
    body: refunds.RefundRequest,
    response: refunds.RefundResponse,
  },
  {
    method: 'GET',
    path: '/api/admin/purchases',
    service: 'payments',
    auth: 'admin',
    query: refunds.PlayerMoneyQuery,
    response: refunds.AdminPurchasesPage,
  },
  {
    method: 'GET',
    path: '/api/admin/payouts',
    service: 'payments',
    auth: 'admin',
    query: refunds.PlayerMoneyQuery,
    response: refunds.AdminPayoutsPage,
  },
  // Called by Braintree, not by a browser: form-encoded, verified by the SDK against the merchant's keys.
  {
    method: 'POST',
    path: '/api/payments/webhooks/braintree',
    service: 'payments',
    auth: 'providerSignature',
    bodyType: 'form',
    body: payments.BraintreeWebhookRequest,
    response: payments.BraintreeWebhookResponse,
  },
];

/** Which service each public path prefix goes to (docs/architecture.md); the gateway routes by it. */
export const ROUTE_PREFIXES: readonly { prefix: string; service: Service | 'realtime' }[] = [
  { prefix: '/api/user', service: 'auth' },
  { prefix: '/api/admin/users', service: 'auth' },
  { prefix: '/api/admin/updateRole', service: 'auth' },
  { prefix: '/api/admin/audit', service: 'auth' },
  { prefix: '/api/admin/approvals', service: 'auth' },
  { prefix: '/api/admin/collect', service: 'auth' },
  { prefix: '/api/admin/purchases', service: 'payments' },
  { prefix: '/api/admin/payouts', service: 'payments' },
  { prefix: '/api/game', service: 'game' },
  { prefix: '/api/winners/setPaymentMethod', service: 'payments' },
  { prefix: '/api/winners/collect', service: 'payments' },
  { prefix: '/api/winners/confirm-payout-email', service: 'payments' },
  { prefix: '/api/winners', service: 'game' },
  { prefix: '/api/payments', service: 'payments' },
  { prefix: '/socket.io', service: 'realtime' },
];
