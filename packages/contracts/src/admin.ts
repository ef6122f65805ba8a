// The operator's routes (services/auth): finding a player, suspending and restoring, the audit log.
import { z } from 'zod';
import { AdminUsersResponse } from './auth.js';
import { AdminUserBalances } from './balances.js';
import { Role } from './common.js';

export const ADMIN_PAGE_MAX = 100;

const Cursor = z
  .string({ error: 'cursor must be the nextCursor of a previous page' })
  .max(400, { error: 'cursor must be the nextCursor of a previous page' })
  .regex(/^[A-Za-z0-9_-]+$/, { error: 'cursor must be the nextCursor of a previous page' });

const PageLimit = z.coerce
  .number({ error: `limit must be a whole number from 1 to ${ADMIN_PAGE_MAX}` })
  .int({ error: `limit must be a whole number from 1 to ${ADMIN_PAGE_MAX}` })
  .min(1, { error: `limit must be a whole number from 1 to ${ADMIN_PAGE_MAX}` })
  .max(ADMIN_PAGE_MAX, { error: `limit must be a whole number from 1 to ${ADMIN_PAGE_MAX}` });

/**
 * `GET /api/admin/users?query=&cursor=&limit=`: with none of them the answer is the original client's
 * `{ users: [{ username, email, role }] }`; with any, a page. `query` is a prefix of the username, or of
 * the email when it holds an `@`, case-insensitive.
 */
export const AdminUsersQuery = z.object({
  query: z
    .string()
    .trim()
    .min(1, { error: 'query must not be empty' })
    .max(254, { error: 'query must be at most 254 characters' })
    .optional(),
  cursor: Cursor.optional(),
  limit: PageLimit.optional(),
});
export type AdminUsersQuery = z.infer<typeof AdminUsersQuery>;

export const AdminUserEntry = z.object({
  id: z.uuid(),
  username: z.string(),
  email: z.string().nullable(),
  role: Role,
  verified: z.boolean(),
  suspended: z.boolean(),
  suspendedReason: z.string().nullable(),
  suspendedAt: z.string().nullable(),
  createdAt: z.string(),
  /** In a page of the list: clicks (game) and money (payments); absent from a suspend/restore answer. */
  balances: AdminUserBalances.optional(),
});
export type AdminUserEntry = z.infer<typeof AdminUserEntry>;

export const AdminUsersPage = z.object({ users: z.array(AdminUserEntry), nextCursor: z.string().nullable() });
export type AdminUsersPage = z.infer<typeof AdminUsersPage>;

/** What `GET /api/admin/users` answers: the original list without parameters, a page with them. */
export const AdminUsersAnswer = z.union([AdminUsersPage, AdminUsersResponse]);

export const UserIdParams = z.object({ id: z.uuid({ error: 'id must be a user id' }) });

/** Why the operator acts: shown to the player (suspension) and kept in the audit log. */
const Reason = z
  .string({ error: 'reason is required' })
  .trim()
  .min(3, { error: 'reason must be at least 3 characters' })
  .max(500, { error: 'reason must be at most 500 characters' });

export const SuspendRequest = z.object({ reason: Reason });
export const RestoreRequest = z.object({ reason: Reason });
export type SuspendRequest = z.infer<typeof SuspendRequest>;

export const SuspensionResponse = z.object({ message: z.string(), user: AdminUserEntry });
export type SuspensionResponse = z.infer<typeof SuspensionResponse>;

/** The message of an ACCOUNT_SUSPENDED refusal: the operator's reason, when there is one. */
export const suspendedMessage = (reason: string | null) =>
  `This account is suspended${reason ? `: ${reason}` : ''}. Contact support to appeal.`;

export const AUDIT_ACTIONS = [
  'role.changed',
  'user.suspended',
  'user.restored',
  'password.reset',
  'password.changed',
  'email.changed',
  'sessions.ended_everywhere',
  'house.collected',
  'purchase.refunded',
  'approval.requested',
  'approval.approved',
  'approval.failed',
  'approval.refused',
  'approval.expired',
] as const;
export const AuditAction = z.enum(AUDIT_ACTIONS, {
  error: `action must be one of ${AUDIT_ACTIONS.join(', ')}`,
});
export type AuditAction = z.infer<typeof AuditAction>;

export const AuditQuery = z.object({
  action: AuditAction.optional(),
  actorId: z.uuid({ error: 'actorId must be a user id' }).optional(),
  targetId: z.uuid({ error: 'targetId must be a user id' }).optional(),
  cursor: Cursor.optional(),
  limit: PageLimit.optional(),
});
export type AuditQuery = z.infer<typeof AuditQuery>;

const Party = z.object({ id: z.string().nullable(), label: z.string().nullable() }).nullable();

export const AuditEntry = z.object({
  id: z.string(),
  at: z.string(),
  action: z.string(),
  /** Who did it: an admin, or the account's owner for account-security events. */
  actor: Party,
  target: Party,
  /** What changed, e.g. `{ from: 'standard', to: 'admin' }` or `{ reason }`. */
  detail: z.record(z.string(), z.unknown()),
  /** The address the request came from, as the gateway saw it. */
  ip: z.string().nullable(),
});
export type AuditEntry = z.infer<typeof AuditEntry>;

export const AuditPage = z.object({ entries: z.array(AuditEntry), nextCursor: z.string().nullable() });
export type AuditPage = z.infer<typeof AuditPage>;

/**
 * `POST /internal/audit`: another service records an admin action it carried out (payments: the house
 * pot collected), with the admin's own token forwarded; auth names the actor from it.
 */
export const INTERNAL_AUDIT_PATH = '/internal/audit';
export const InternalAuditRecord = z.object({
  action: z.enum(['house.collected', 'purchase.refunded']),
  /** The player the action was about (the buyer of a refunded purchase); auth names them. */
  targetId: z.uuid().optional(),
  detail: z.record(z.string(), z.union([z.string().max(600), z.number(), z.boolean()])),
  /** The client address the acting service saw. */
  ip: z.string().max(100).nullable(),
});
export type InternalAuditRecord = z.infer<typeof InternalAuditRecord>;
