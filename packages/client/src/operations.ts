// Every public operation, named for an integrator and typed by the catalogue's own schemas. The test
// beside it checks that these and ROUTES (packages/contracts) name the same routes with the very same
// schema objects, so the client cannot drift from what the servers validate. One export each (the
// package exports them together as `operations`), so a bundle keeps only the operations it calls.
import * as c from '@omc/contracts';
import { op } from './operation.js';

export * from './operatorOperations.js';

const withCookie = { credentials: true };

export const login = /* @__PURE__ */ op('POST', '/api/user/login', {
  body: c.LoginRequest,
  response: c.LoginResponse,
  ...withCookie,
});
export const register = /* @__PURE__ */ op('POST', '/api/user/register', {
  body: c.RegisterRequest,
  response: c.RegisterResponse,
  ...withCookie,
});
export const refresh = /* @__PURE__ */ op('POST', '/api/user/refresh', {
  response: c.RefreshResponse,
  ...withCookie,
});
export const logout = /* @__PURE__ */ op('POST', '/api/user/refresh/logout', {
  response: c.MessageResponse,
  ...withCookie,
});
export const profile = /* @__PURE__ */ op('GET', '/api/user/profile', { response: c.ProfileResponse });
export const changeLanguage = /* @__PURE__ */ op('PUT', '/api/user/change-language', {
  body: c.ChangeLanguageRequest,
  response: c.MessageResponse,
});
export const changeEmail = /* @__PURE__ */ op('PUT', '/api/user/change-email', {
  body: c.ChangeEmailRequest,
  response: c.MessageResponse,
});
export const changePassword = /* @__PURE__ */ op('PUT', '/api/user/change-password', {
  body: c.ChangePasswordRequest,
  response: c.MessageWithTokenResponse,
  ...withCookie,
});
export const changeUsername = /* @__PURE__ */ op('PUT', '/api/user/change-username', {
  body: c.ChangeUsernameRequest,
  response: c.MessageResponse,
});
export const deleteAccount = /* @__PURE__ */ op('DELETE', '/api/user/delete-account', {
  response: c.MessageResponse,
});
export const forgotPassword = /* @__PURE__ */ op('POST', '/api/user/forgot-password', {
  body: c.ForgotPasswordRequest,
  response: c.MessageResponse,
});
export const resetPassword = /* @__PURE__ */ op('POST', '/api/user/reset-password', {
  body: c.ResetPasswordRequest,
  response: c.MessageResponse,
});
export const verifyEmail = /* @__PURE__ */ op('POST', '/api/user/verify-email', {
  body: c.VerifyEmailRequest,
  response: c.MessageResponse,
});
export const confirmEmail = /* @__PURE__ */ op('POST', '/api/user/confirm-email', {
  body: c.ConfirmEmailChangeRequest,
  response: c.MessageResponse,
});
export const undoEmailChange = /* @__PURE__ */ op('POST', '/api/user/undo-email-change', {
  body: c.UndoEmailChangeRequest,
  response: c.MessageResponse,
});
export const resendVerification = /* @__PURE__ */ op('POST', '/api/user/resend-verification', {
  response: c.MessageResponse,
});
export const sessions = /* @__PURE__ */ op('GET', '/api/user/sessions', { response: c.SessionsResponse });
export const endOtherSessions = /* @__PURE__ */ op('DELETE', '/api/user/sessions', {
  response: c.MessageWithTokenResponse,
});
export const endSession = /* @__PURE__ */ op('DELETE', '/api/user/sessions/:id', {
  params: c.SessionIdParams,
  response: c.MessageResponse,
});
export const gameState = /* @__PURE__ */ op('GET', '/api/game/state', { response: c.GameStateResponse });
export const rules = /* @__PURE__ */ op('GET', '/api/game/rules', { response: c.GameRules });
export const gameProfile = /* @__PURE__ */ op('GET', '/api/game/profile', { response: c.GameProfile });
export const click = /* @__PURE__ */ op('POST', '/api/game/click', { response: c.ClickResponse });
export const winners = /* @__PURE__ */ op('GET', '/api/winners', {
  query: c.WinnersQuery,
  response: c.WinnersResponse,
});
export const clientToken = /* @__PURE__ */ op('GET', '/api/payments/token', {
  response: c.ClientTokenResponse,
});
export const paymentsProfile = /* @__PURE__ */ op('GET', '/api/payments/profile', {
  response: c.PaymentsProfile,
});
export const checkout = /* @__PURE__ */ op('POST', '/api/payments/checkout', {
  body: c.CheckoutRequest,
  response: c.CheckoutResponse,
});
export const setPaymentMethod = /* @__PURE__ */ op('POST', '/api/winners/setPaymentMethod', {
  body: c.SetPaymentMethodRequest,
  response: c.MessageResponse,
});
export const confirmPayoutEmail = /* @__PURE__ */ op('POST', '/api/winners/confirm-payout-email', {
  body: c.ConfirmPayoutEmailRequest,
  response: c.MessageResponse,
});
export const collect = /* @__PURE__ */ op('POST', '/api/winners/collect', { response: c.CollectResponse });
export const braintreeWebhook = /* @__PURE__ */ op('POST', '/api/payments/webhooks/braintree', {
  body: c.BraintreeWebhookRequest,
  response: c.BraintreeWebhookResponse,
  form: true,
});
