// Field rules of the client contract, shared by the server's request schemas and the browser's forms.
import { z } from 'zod';

export const USERNAME_MIN = 3;
export const USERNAME_MAX = 30;
export const PASSWORD_MIN = 6;
/** Upper bound so that hashing cannot be used to burn the server's CPU. */
export const PASSWORD_MAX = 128;
export const EMAIL_MAX = 254;

/** The most the part of an address before its `@` may hold (RFC 5321). */
export const EMAIL_LOCAL_MAX = 64;

// One mailbox, spelled one way: a strict subset of RFC 5322's addr-spec. The local part is a dot-atom
// (letters and digits of any script and !#$%&'*+/=?^_`{|}~- in dot-separated runs); the domain is a
// host name of two or more labels (letters and digits of any script, inner hyphens). So a display name,
// a comment, angle brackets, quotes, a backslash, a comma, whitespace or a control character is refused,
// and no mailer can read the text as some other mailbox. Dot-separated runs that cannot overlap keep
// matching linear in the length; and every pattern runs only after its length check passed (`abort`),
// never on an over-long value.
export const EMAIL_PATTERN =
  /^[\p{L}\p{M}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{M}\p{N}!#$%&'*+/=?^_`{|}~-]+)*@[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?(?:\.[\p{L}\p{M}\p{N}](?:[\p{L}\p{M}\p{N}-]*[\p{L}\p{M}\p{N}])?)+$/u;
export const USERNAME_PATTERN = /^[A-Za-z0-9_]+$/;

/**
 * Why a text cannot be stored as it is, or undefined: Postgres refuses NUL in text outright, and a lone
 * UTF-16 surrogate is no character at all (the driver would store U+FFFD in its place). The edge
 * refuses both in every string of a request (path, query, body) with a 400 naming the field.
 */
export function textProblem(value: string): string | undefined {
  if (value.includes('\u0000')) return 'must not contain the NUL character (U+0000)';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text (it holds a lone surrogate)';
  return undefined;
}
/** In a `u` pattern a well-formed pair is one code point, so only a lone surrogate matches. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * An address as it is kept and mailed: the local part as typed (a mail server may tell its case apart),
 * the domain in lower case (no server does). Comparisons (uniqueness, look-ups, the mail quota) go
 * through canonicalEmail, which folds the local part's case too.
 */
export function normalizeEmail(address: string): string {
  const at = address.lastIndexOf('@');
  if (at < 0) return address;
  return `${address.slice(0, at)}@${address.slice(at + 1).toLowerCase()}`;
}

export const EmailField = z
  .string({ error: 'email must be a string' })
  .max(EMAIL_MAX, { error: `email must be at most ${EMAIL_MAX} characters`, abort: true })
  .regex(EMAIL_PATTERN, {
    error:
      'email must be one plain address like name@example.com: no display name, comment, angle brackets, quotes or spaces',
    abort: true,
  })
  .refine((address) => address.lastIndexOf('@') <= EMAIL_LOCAL_MAX, {
    error: `email may have at most ${EMAIL_LOCAL_MAX} characters before the @`,
    abort: true,
  })
  .overwrite(normalizeEmail);

export const UsernameField = z
  .string({ error: 'username must be a string' })
  .min(USERNAME_MIN, { error: `username must be at least ${USERNAME_MIN} characters` })
  .max(USERNAME_MAX, { error: `username must be at most ${USERNAME_MAX} characters`, abort: true })
  .regex(USERNAME_PATTERN, { error: 'username may contain only letters, digits and underscore' });

export const PasswordField = z
  .string({ error: 'password must be a string' })
  .min(PASSWORD_MIN, { error: `password must be at least ${PASSWORD_MIN} characters` })
  .max(PASSWORD_MAX, { error: `password must be at most ${PASSWORD_MAX} characters` });

const filled = (value: string | undefined | null): value is string =>
  typeof value === 'string' && value.trim() !== '';

/** Translation key of the first failing rule, or null. Order as in the client contract. */
export function validateLoginForm(form: { emailOrUsername?: string; password?: string }): string | null {
  if (!filled(form.emailOrUsername) || !filled(form.password)) return 'login.allRequired';
  return null;
}

export function validateRegisterForm(form: {
  username?: string;
  email?: string;
  password?: string;
  confirmPassword?: string;
}): string | null {
  const { username, email, password, confirmPassword } = form;
  if (!filled(username) || !filled(email) || !filled(password) || !filled(confirmPassword))
    return 'register.allRequired';
  if (password !== confirmPassword) return 'register.passwordsDontMatch';
  if (password.length < PASSWORD_MIN) return 'register.passwordHelp';
  if (password.length > PASSWORD_MAX) return 'register.passwordTooLong';
  if (!EmailField.safeParse(email).success) return 'register.validEmailError';
  if (username.length < USERNAME_MIN) return 'register.usernameMinLength';
  if (!UsernameField.safeParse(username).success) return 'register.usernameRequirements';
  return null;
}

export function validateChangeEmailForm(form: { email?: string }): string | null {
  if (!filled(form.email) || !EmailField.safeParse(form.email).success) return 'changeEmail.validEmailError';
  return null;
}

export function validateChangePasswordForm(form: {
  currentPassword?: string;
  newPassword?: string;
  confirmPassword?: string;
}): string | null {
  if (!filled(form.currentPassword) || !filled(form.newPassword) || !filled(form.confirmPassword))
    return 'changePassword.allRequired';
  if (form.newPassword !== form.confirmPassword) return 'changePassword.passwordsDontMatch';
  if (form.newPassword.length < PASSWORD_MIN) return 'changePassword.passwordMinLength';
  if (form.newPassword.length > PASSWORD_MAX) return 'changePassword.passwordTooLong';
  return null;
}

export function validateChangeUsernameForm(form: { username?: string }): string | null {
  if (!filled(form.username) || !UsernameField.safeParse(form.username).success)
    return 'changeUsername.usernameRequirements';
  return null;
}

export function validatePaymentMethodForm(form: { paypalEmail?: string }): string | null {
  if (!filled(form.paypalEmail) || !EmailField.safeParse(form.paypalEmail).success)
    return 'paymentMethod.missingEmailError';
  return null;
}

/**
 * The one form two email addresses are compared in: Unicode NFKC, then case folded (upper then lower
 * case, so "ß" and "SS" meet, and U+212A KELVIN SIGN is the letter k), then NFKC again. Stored beside
 * the address as typed, which is what mail goes to; uniqueness and look-ups read only this form.
 */
export function canonicalEmail(email: string): string {
  return email.trim().normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}
