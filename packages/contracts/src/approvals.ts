// Acts that need two admins (services/auth): granting superuser or admin, and paying out the house pot.
// The first admin's call opens a request (202); another admin approves or refuses it before it expires.
import { z } from 'zod';
import { CurrentPasswordField } from './auth.js';
import { Role } from './common.js';
import { CollectResponse } from './payments.js';
import { EmailField } from './validation.js';

export const APPROVAL_KINDS = ['role', 'housePayout'] as const;
export const ApprovalKind = z.enum(APPROVAL_KINDS);
export type ApprovalKind = z.infer<typeof ApprovalKind>;

export const APPROVAL_STATUSES = ['pending', 'approved', 'refused', 'expired'] as const;
export const ApprovalStatus = z.enum(APPROVAL_STATUSES);
export type ApprovalStatus = z.infer<typeof ApprovalStatus>;

/** Roles whose grant needs a second admin; a grant of 'standard' (and so any demotion) needs one admin. */
export const ROLES_NEEDING_APPROVAL: readonly Role[] = ['admin', 'superuser'];

/** `POST /api/admin/updateRole`: the original client's body, plus the password a privileged grant needs. */
export const UpdateRoleRequest = z.object({
  email: EmailField,
  role: Role,
  currentPassword: CurrentPasswordField.optional(),
});
export type UpdateRoleRequest = z.infer<typeof UpdateRoleRequest>;

/** `POST /api/admin/collect`: no body in the original client (a sign-in within the window), or the password. */
export const AdminCollectRequest = z
  .strictObject({ currentPassword: CurrentPasswordField.optional() })
  .nullish();
export type AdminCollectRequest = z.infer<typeof AdminCollectRequest>;

const Party = z.object({ id: z.string().nullable(), username: z.string().nullable() });

export const Approval = z.object({
  id: z.uuid(),
  kind: ApprovalKind,
  status: ApprovalStatus,
  requestedBy: Party,
  /** The account a role grant is for (null for a house payout). */
  target: Party.nullable(),
  /** The role a grant gives (null for a house payout). */
  role: Role.nullable(),
  createdAt: z.string(),
  expiresAt: z.string(),
  decidedBy: Party.nullable(),
  decidedAt: z.string().nullable(),
  /** What carrying it out gave: `{ transactionId, amount }` of a payout, or `{ error }` when it failed. */
  outcome: z.record(z.string(), z.unknown()).nullable(),
});
export type Approval = z.infer<typeof Approval>;

/** `POST /api/admin/updateRole`'s answer: with `approval` when it opened a request (202, nothing done yet). */
export const UpdateRoleAnswer = z.object({ message: z.string(), approval: Approval.optional() });
export type UpdateRoleAnswer = z.infer<typeof UpdateRoleAnswer>;

/** The answer of a call that opened a request: 202, nothing done yet. */
export const ApprovalPending = z.object({ message: z.string(), approval: Approval });
export type ApprovalPending = z.infer<typeof ApprovalPending>;

/**
 * `POST /api/admin/collect`: 200 with the payout when the deployment has one admin (paid at once, the
 * request approved by its requester), else 202 with the request another admin decides.
 */
export const AdminCollectAnswer = z.union([CollectResponse.extend({ approval: Approval }), ApprovalPending]);
export type AdminCollectAnswer = z.infer<typeof AdminCollectAnswer>;

export const ApprovalsQuery = z.object({
  status: ApprovalStatus.optional(),
});
export type ApprovalsQuery = z.infer<typeof ApprovalsQuery>;

export const ApprovalsAnswer = z.object({ approvals: z.array(Approval) });
export type ApprovalsAnswer = z.infer<typeof ApprovalsAnswer>;

export const ApprovalIdParams = z.object({ id: z.uuid({ error: 'id must be an approval request id' }) });
export type ApprovalIdParams = z.infer<typeof ApprovalIdParams>;

/** Approving needs the approver's own password within the window, as opening does. */
export const ApproveRequest = z.strictObject({ currentPassword: CurrentPasswordField.optional() }).nullish();
export type ApproveRequest = z.infer<typeof ApproveRequest>;

export const RefuseRequest = z
  .strictObject({
    reason: z
      .string({ error: 'reason must be a string' })
      .trim()
      .max(500, { error: 'reason must be at most 500 characters' })
      .optional(),
  })
  .nullish();
export type RefuseRequest = z.infer<typeof RefuseRequest>;

export const ApprovalDecision = z.object({
  message: z.string(),
  approval: Approval,
  /** The payout an approved house payout made. */
  payout: CollectResponse.optional(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

/**
 * `POST /internal/house-payouts` (payments; auth alone calls it, once a second admin approved): pays the
 * house balance to the requesting admin's PayPal email. Auth states the account as it has it now.
 */
export const INTERNAL_HOUSE_PAYOUT_PATH = '/internal/house-payouts';
export const InternalHousePayout = z.object({
  approvalId: z.uuid(),
  userId: z.uuid(),
  role: Role,
  emailVerified: z.boolean(),
  securityEpoch: z.number().int().nonnegative(),
});
export type InternalHousePayout = z.infer<typeof InternalHousePayout>;
