import { z } from 'zod';

export const ROLES = ['standard', 'superuser', 'admin'] as const;
export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;
/** A role change's place in auth's own sequence of role changes: higher is newer. */
export const RoleVersion = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** Roles that click without spending. */
export const PRIVILEGED_ROLES: readonly Role[] = ['admin', 'superuser'];

export function isPrivileged(role: Role | null | undefined): boolean {
  return role != null && PRIVILEGED_ROLES.includes(role);
}

export const LANGUAGES = ['es', 'en', 'fr', 'de', 'it', 'pt'] as const;
export const Language = z.enum(LANGUAGES);
export type Language = z.infer<typeof Language>;
export const DEFAULT_LANGUAGE: Language = 'es';

export const UserId = z.uuid();

/**
 * The error envelope of every HTTP error. The original client reads `message` on most calls, `error`
 * on payments and winners, and `msg` on some (delete-account): each carries the same text, on every
 * error, so no call's reader finds its key missing. `field` names the bad input of a 400.
 */
export const ErrorBody = z.object({
  message: z.string(),
  error: z.string(),
  msg: z.string(),
  code: z.string().optional(),
  field: z.string().optional(),
  requestId: z.string().optional(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

/** An error body: the same text under every key a client reads, and whatever else the caller adds. */
export function errorBody<T extends object = object>(
  message: string,
  extra?: T,
): { message: string; error: string; msg: string } & T {
  return { message, error: message, msg: message, ...(extra as T) };
}

export const MessageResponse = z.object({ message: z.string() });
export type MessageResponse = z.infer<typeof MessageResponse>;

/** freeClicks at or above this means unlimited (docs/client-contract.md). */
export const UNLIMITED_CLICKS = Number.MAX_SAFE_INTEGER;

// Money: integer cents inside the system; euros with two decimals at the browser's edge.
export const Cents = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
export const Euros = z.number().nonnegative();

export function centsToEuros(cents: number): number {
  return Math.round(cents) / 100;
}

/** Parses a price string such as "0.99" or "9.99" to cents exactly (no floating point). */
export function parseEuroAmount(amount: string): number | undefined {
  const match = /^(\d{1,6})(?:\.(\d{1,2}))?$/.exec(amount.trim());
  if (!match) return undefined;
  const whole = Number(match[1]);
  const fraction = Number((match[2] ?? '').padEnd(2, '0'));
  return whole * 100 + fraction;
}

export function formatEuroAmount(cents: number): string {
  return `${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, '0')}`;
}
