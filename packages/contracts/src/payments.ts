// HTTP bodies of services/payments (SPEC section 7, DESIGN sections 2 and 4).
import { z } from 'zod';
import { Euros } from './common.js';
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

export const SetPaymentMethodRequest = z.object({
  paypalEmail: EmailField,
});
export type SetPaymentMethodRequest = z.infer<typeof SetPaymentMethodRequest>;

export const CollectResponse = z.object({ transactionId: z.string(), amount: Euros.optional() });
export type CollectResponse = z.infer<typeof CollectResponse>;

/**
 * The error `code` of a collect (winnings or the house pot) refused because the account's email is not
 * verified: 403, nothing moved. The player verifies from the mailed link (or asks for a new one with
 * `POST /api/user/resend-verification`) and collects again.
 */
export const EMAIL_NOT_VERIFIED = 'EMAIL_NOT_VERIFIED';
export const EMAIL_NOT_VERIFIED_MESSAGE =
  'Verify your account email before collecting: open the link we mailed you (or ask for a new one), then collect again. Nothing was moved.';

/** The payments part of the profile, for the caller itself. adminBalance is null unless the caller is admin. */
export const PaymentsProfile = z.object({
  potEarned: Euros,
  paypalEmail: z.string().nullable(),
  adminBalance: Euros.nullable(),
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
