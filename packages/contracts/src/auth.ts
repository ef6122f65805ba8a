// HTTP bodies of services/auth (docs/client-contract.md).
import { z } from 'zod';
import { Language, Role } from './common.js';
import { EMAIL_MAX, EmailField, PASSWORD_MAX, PasswordField, UsernameField } from './validation.js';

export const LoginRequest = z.object({
  emailOrUsername: z
    .string({ error: 'emailOrUsername is required' })
    .trim()
    .min(1, { error: 'emailOrUsername is required' })
    .max(EMAIL_MAX, { error: `emailOrUsername must be at most ${EMAIL_MAX} characters` }),
  password: z
    .string({ error: 'password is required' })
    .min(1, { error: 'password is required' })
    .max(PASSWORD_MAX, { error: `password must be at most ${PASSWORD_MAX} characters` }),
});
export type LoginRequest = z.infer<typeof LoginRequest>;

export const LoginResponse = z.object({
  token: z.string(),
  preferredLanguage: Language,
  message: z.string(),
});
export type LoginResponse = z.infer<typeof LoginResponse>;

export const RegisterRequest = z.object({
  username: UsernameField,
  email: EmailField,
  password: PasswordField,
  /** The language the player signed up in (the interface's); Spanish when absent. Mails use it. */
  preferredLanguage: Language.optional(),
});
export type RegisterRequest = z.infer<typeof RegisterRequest>;

export const RegisterResponse = z.object({ token: z.string(), message: z.string() });
export type RegisterResponse = z.infer<typeof RegisterResponse>;

export const RefreshResponse = z.object({ token: z.string() });
export type RefreshResponse = z.infer<typeof RefreshResponse>;

export const ChangeLanguageRequest = z.object({ language: Language });
/**
 * The current password proves the owner, not a thief holding a copy of the token. Optional because the original client's
 * client sends only `email`: auth then accepts a sign-in within the last few minutes instead, and
 * otherwise answers 400 naming `currentPassword`.
 */
export const CurrentPasswordField = z
  .string({ error: 'currentPassword must be a string' })
  .min(1, { error: 'currentPassword is required' })
  .max(PASSWORD_MAX);
export const ChangeEmailRequest = z.object({
  email: EmailField,
  currentPassword: CurrentPasswordField.optional(),
});
export const ChangePasswordRequest = z.object({
  currentPassword: z
    .string({ error: 'currentPassword is required' })
    .min(1, { error: 'currentPassword is required' })
    .max(PASSWORD_MAX),
  newPassword: PasswordField,
});
export const ChangeUsernameRequest = z.object({ username: UsernameField });

/**
 * A security event the caller's own session survives (a password change, "sign out everywhere") raises
 * the account's security version, so the access token the caller holds stops counting: the answer
 * carries its successor. The original client reads only `message` and gets a new token at its next refresh.
 */
export const MessageWithTokenResponse = z.object({ message: z.string(), token: z.string() });
export type MessageWithTokenResponse = z.infer<typeof MessageWithTokenResponse>;

/** The whole profile: identity from auth, balances from game and payments (absent when those are down). */
export const ProfileResponse = z.object({
  username: z.string(),
  email: z.string().nullable(),
  role: Role,
  preferredLanguage: Language.optional(),
  adminBalance: z.number().nonnegative().nullable(),
  paypalEmail: z.string().nullable(),
  freeClicks: z.number().int().nonnegative().nullable(),
  purchasedClicks: z.number().int().nonnegative().nullable().optional(),
  hasInfiniteClicks: z.boolean().nullable(),
  potEarned: z.number().nonnegative().nullable(),
  /** Why collecting the winnings is held now (the PAYOUT_HELD message); absent when it is not. */
  payoutHeld: z.string().nullable().optional(),
  /** Whether the account's email was confirmed from a link mailed to it (absent from older servers). */
  emailVerified: z.boolean().optional(),
  /** The address an email change waits to be confirmed from (null: none; absent from older servers). */
  pendingEmail: z.string().nullable().optional(),
});
export type ProfileResponse = z.infer<typeof ProfileResponse>;

/**
 * Sent by the gateway with `GET /api/user/profile` when it asks game and payments for their parts
 * itself (one hop each, in parallel): auth then answers with the account's own fields alone, the
 * balances null, and calls nobody.
 */
export const PROFILE_PARTS_HEADER = 'x-profile-parts';
export const PROFILE_PARTS_ACCOUNT = 'account';

export const AdminUser = z.object({ username: z.string(), email: z.string().nullable(), role: Role });
export const AdminUsersResponse = z.object({ users: z.array(AdminUser) });
export type AdminUsersResponse = z.infer<typeof AdminUsersResponse>;

/** Claims of the access token (JWT, EdDSA), verified by every service with auth's public key. */
export const AccessTokenClaims = z.object({
  sub: z.uuid(),
  username: z.string(),
  role: Role,
  exp: z.number().int(),
  iat: z.number().int().optional(),
  /** The session (refresh family) the token was issued for: `GET /api/user/sessions` marks it current. */
  sid: z.uuid().optional(),
  /**
   * The account's security version when the token was signed: a password change or reset, an email
   * confirm or undo, or "sign out everywhere" raises it, and auth refuses older tokens on account and
   * money routes (401).
   */
  sv: z.number().int().nonnegative().optional(),
});
export type AccessTokenClaims = z.infer<typeof AccessTokenClaims>;

/**
 * `GET /internal/account` on auth, for services only (no public prefix reaches it): the caller's account
 * as auth's database has it now. Money paths ask it rather than trust a token minutes old or an event
 * not yet delivered; 401 when the account no longer exists.
 */
export const INTERNAL_ACCOUNT_PATH = '/internal/account';
export const InternalAccount = z.object({
  userId: z.uuid(),
  role: Role,
  /** Whether the account's current email was confirmed from a mailed link (absent from older auth). */
  emailVerified: z.boolean().optional(),
  /**
   * When the caller's session signed in with a password (ISO time): a change of the payout email made
   * within REAUTH_WINDOW_SECONDS of it needs no password again. Absent from older auth.
   */
  signedInAt: z.iso.datetime({ offset: true }).nullable().optional(),
  /**
   * Raised by every security event of the account (password reset or change, email confirm or undo, an
   * ended session, sign out everywhere, suspension): a mailed link minted under another epoch is spent.
   * Absent from older auth.
   */
  securityEpoch: z.number().int().nonnegative().optional(),
});
export type InternalAccount = z.infer<typeof InternalAccount>;

/** A token from a link in a mail: opaque to the client, bounded so no one posts megabytes. */
export const MailedToken = z
  .string({ error: 'token is required' })
  .trim()
  .min(1, { error: 'token is required' })
  .max(512, { error: 'token must be at most 512 characters' });

/** `POST /api/user/forgot-password`: always 202 with the same body, whether or not the address has an account. */
export const ForgotPasswordRequest = z.object({ email: EmailField });
export type ForgotPasswordRequest = z.infer<typeof ForgotPasswordRequest>;
export const FORGOT_PASSWORD_MESSAGE =
  'If an account uses this address, a link to choose a new password is on its way. It is valid for 30 minutes.';

/** `POST /api/user/reset-password`: the token from the mailed link and the new password; every session ends. */
export const ResetPasswordRequest = z.object({ token: MailedToken, newPassword: PasswordField });
export type ResetPasswordRequest = z.infer<typeof ResetPasswordRequest>;

/** `POST /api/user/verify-email`: the token from the mailed link. */
export const VerifyEmailRequest = z.object({ token: MailedToken });
export type VerifyEmailRequest = z.infer<typeof VerifyEmailRequest>;

/**
 * `PUT /api/user/change-email` (the original client's body and answer): the account's email stays as it is until the new
 * address confirms from the link mailed to it; the message says to check that inbox.
 */
export const CHANGE_EMAIL_PENDING_MESSAGE =
  'Check your new inbox: we sent a confirmation link to the new address. Your email changes when you open it.';

/** `POST /api/user/confirm-email`: the token from the link mailed to the new address. */
export const ConfirmEmailChangeRequest = z.object({ token: MailedToken });
export type ConfirmEmailChangeRequest = z.infer<typeof ConfirmEmailChangeRequest>;

/** `POST /api/user/undo-email-change`: the token from the notice mailed to the old address; every session ends. */
export const UndoEmailChangeRequest = z.object({ token: MailedToken });
export type UndoEmailChangeRequest = z.infer<typeof UndoEmailChangeRequest>;

/** One signed-in browser or device: a refresh family. */
export const SessionInfo = z.object({
  id: z.uuid(),
  /** "Firefox on Linux", from the user agent it signed in with. */
  device: z.string(),
  /** The client address it was last used from. */
  ip: z.string().nullable(),
  createdAt: z.iso.datetime({ offset: true }),
  lastUsedAt: z.iso.datetime({ offset: true }),
  /** The session the request's access token belongs to. */
  current: z.boolean(),
});
export type SessionInfo = z.infer<typeof SessionInfo>;

/** `GET /api/user/sessions`: the account's active sessions, most recently used first. */
export const SessionsResponse = z.object({ sessions: z.array(SessionInfo) });
export type SessionsResponse = z.infer<typeof SessionsResponse>;

export const SessionIdParams = z.object({ id: z.uuid({ error: 'id must be a session id' }) });
