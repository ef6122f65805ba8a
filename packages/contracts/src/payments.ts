// HTTP bodies of services/payments (docs/client-contract.md).
import { z } from 'zod';
import { Euros } from './common.js';
import { CurrentPasswordField, MailedToken } from './auth.js';
import { EmailField } from './validation.js';

/** `environment: 'emulator'` tells the web app that the provider's scripts cannot load (local emulator). */
export const ClientTokenResponse = z.object({
  clientToken: z.string(),
  environment: z.enum(['emulator', 'sandbox', 'production']).optional(),
});
export type ClientTokenResponse = z.infer<typeof ClientTokenResponse>;

export const CheckoutRequest = z.object({
  paymentMethodNonce: z
    .string({ error: 'paymentMethodNonce is required' })
    .min(1, { error: 'paymentMethodNonce is required' })
    .max(4096, { error: 'paymentMethodNonce is too long' }),
  amount: z
    .string({ error: 'amount must be a string such as "0.99"' })
    .max(16, { error: 'amount must be a string such as "0.99"' })
    .regex(/^\d{1,6}(\.\d{1,2})?$/, { error: 'amount must be a string such as "0.99"' }),
  /** Optional client-chosen key; a retry with the same key never charges twice. */
  idempotencyKey: z
    .string()
    .min(8)
    .max(100)
    .regex(/^[A-Za-z0-9_-]+$/)
    .optional(),
});
export type CheckoutRequest = z.infer<typeof CheckoutRequest>;

export const CheckoutResponse = z.union([
  z.object({
    success: z.literal(true),
    transactionId: z.string(),
    clicks: z.number().int().nullable().optional(),
  }),
  z.object({ success: z.literal(false), error: z.string(), message: z.string(), msg: z.string() }),
]);
export type CheckoutResponse = z.infer<typeof CheckoutResponse>;

/**
 * `POST /api/winners/setPaymentMethod` (the original client's body, plus an optional `currentPassword`): the address
 * waits, pending, until it is confirmed from the link mailed to the account's email. The current password
 * is needed unless the session signed in with one within auth's reauth window; otherwise 400 naming
 * `currentPassword`.
 */
export const SetPaymentMethodRequest = z.object({
  paypalEmail: EmailField,
  currentPassword: CurrentPasswordField.optional(),
});
export type SetPaymentMethodRequest = z.infer<typeof SetPaymentMethodRequest>;

/** The answer of `setPaymentMethod`: the original client's `{ message }`, saying where the confirmation link went. */
export const PAYOUT_EMAIL_PENDING_MESSAGE =
  'Check your email: we sent a link to your account email. Your PayPal email changes when you open it; until then winnings go nowhere new.';

/** `POST /api/winners/confirm-payout-email`: the token from the link mailed to the account's email. */
export const ConfirmPayoutEmailRequest = z.object({ token: MailedToken });
export type ConfirmPayoutEmailRequest = z.infer<typeof ConfirmPayoutEmailRequest>;

/**
 * `POST /internal/payout-email/mail` (auth, for payments, with the player's token): checks the current
 * password or a recent sign-in, then mails the confirm link to the account's email and a notice to the
 * previous payout address (if any) and to the new one. No token travels: the confirm mail names the
 * request, and auth asks payments for the link's token when the mail leaves (below).
 */
export const INTERNAL_PAYOUT_EMAIL_MAIL_PATH = '/internal/payout-email/mail';
export const InternalPayoutEmailMail = z.object({
  /** Identifies this request's mails: a retried call queues them once. */
  requestId: z.uuid(),
  newPaypalEmail: z.string().min(1).max(320),
  previousPaypalEmail: z.string().min(1).max(320).nullable(),
  currentPassword: CurrentPasswordField.optional(),
  expiresInHours: z.number().int().positive(),
  /** The player's address, for the same brute-force limits as a login. */
  ip: z.string().max(100),
});
export type InternalPayoutEmailMail = z.infer<typeof InternalPayoutEmailMail>;

/**
 * `POST /internal/payout-email/:requestId/token` (payments, for auth's mailer as the confirm mail leaves):
 * a fresh token for the request's link, whose hash replaces the one before (only the newest mail's link
 * works); 410 when the request may no longer be confirmed (confirmed, cancelled, expired, unknown).
 */
export const INTERNAL_PAYOUT_EMAIL_TOKEN_PATH = '/internal/payout-email/:requestId/token';
export const InternalPayoutEmailTokenParams = z.object({ requestId: z.uuid() });
export const InternalPayoutEmailToken = z.object({ token: z.string().min(16).max(512) });
export type InternalPayoutEmailToken = z.infer<typeof InternalPayoutEmailToken>;

/**
 * `GET /internal/accounts/:userId/security` (auth, for payments, no player token: the confirm link is
 * opened from a mail): the account's security epoch (raised by every security event) and whether it is
 * suspended; 404 when the account does not exist.
 */
export const INTERNAL_ACCOUNT_SECURITY_PATH = '/internal/accounts/:userId/security';
export const internalAccountSecurityPath = (userId: string) =>
  `/internal/accounts/${encodeURIComponent(userId)}/security`;
export const InternalAccountSecurity = z.object({
  userId: z.uuid(),
  securityEpoch: z.number().int().nonnegative(),
  suspended: z.boolean(),
});
export type InternalAccountSecurity = z.infer<typeof InternalAccountSecurity>;

export const CollectResponse = z.object({ transactionId: z.string(), amount: Euros.optional() });
export type CollectResponse = z.infer<typeof CollectResponse>;

/** The payments part of the profile, for the caller itself. adminBalance is null unless the caller is admin. */
export const PaymentsProfile = z.object({
  potEarned: Euros,
  paypalEmail: z.string().nullable(),
  adminBalance: Euros.nullable(),
  /** Why collecting the winnings is held now (the PAYOUT_HELD message); absent when it is not. */
  payoutHeld: z.string().nullable().optional(),
});
export type PaymentsProfile = z.infer<typeof PaymentsProfile>;

/** A Braintree webhook as the provider posts it (application/x-www-form-urlencoded). */
export const BraintreeWebhookRequest = z.object({
  bt_signature: z.string().min(1),
  bt_payload: z.string().min(1),
});
export type BraintreeWebhookRequest = z.infer<typeof BraintreeWebhookRequest>;

/** `duplicate`: this payload was applied before and nothing changed now. */
export const BraintreeWebhookResponse = z.object({
  received: z.literal(true),
  kind: z.string(),
  duplicate: z.boolean(),
});
export type BraintreeWebhookResponse = z.infer<typeof BraintreeWebhookResponse>;
