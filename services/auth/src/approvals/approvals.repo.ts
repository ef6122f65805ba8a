// The only code that reads and writes approvals: two-admin requests (approvals.service.ts).
import type { ApprovalKind, ApprovalStatus, Role } from '@omc/contracts';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { ApprovalsTable, Database } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;
export type ApprovalRow = Selectable<ApprovalsTable>;

export interface NewApproval {
  id: string;
  kind: ApprovalKind;
  requestedBy: { id: string; label: string };
  target: { id: string; label: string } | null;
  role: Role | null;
  createdAt: Date;
  expiresAt: Date;
}

export function insertApproval(db: Db, approval: NewApproval): Promise<ApprovalRow> {
  return db
    .insertInto('approvals')
    .values({
      id: approval.id,
      kind: approval.kind,
      requested_by: approval.requestedBy.id,
      requested_by_label: approval.requestedBy.label,
      target_id: approval.target?.id ?? null,
      target_label: approval.target?.label ?? null,
      role: approval.role,
      created_at: approval.createdAt,
      expires_at: approval.expiresAt,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** The request, locked until the transaction ends: one decision wins, the others see it. */
export function lockApproval(trx: Transaction<Database>, id: string): Promise<ApprovalRow | undefined> {
  return trx.selectFrom('approvals').selectAll().where('id', '=', id).forUpdate().executeTakeFirst();
}

/** Pending requests past their expiry, locked (another replica's sweep skips them). */
export function lockOverdue(trx: Transaction<Database>, now: Date, limit: number): Promise<ApprovalRow[]> {
  return trx
    .selectFrom('approvals')
    .selectAll()
    .where('status', '=', 'pending')
    .where('expires_at', '<=', now)
    .orderBy('expires_at')
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/** A pending request of the same act by the same admin, if one is open (one at a time). */
export function findOpenDuplicate(
  db: Db,
  approval: Pick<NewApproval, 'kind' | 'requestedBy' | 'target' | 'role'>,
  now: Date,
): Promise<ApprovalRow | undefined> {
  return db
    .selectFrom('approvals')
    .selectAll()
    .where('status', '=', 'pending')
    .where('expires_at', '>', now)
    .where('kind', '=', approval.kind)
    .$if(approval.kind === 'housePayout', (q) => q.where('requested_by', '=', approval.requestedBy.id))
    .$if(approval.kind === 'role', (q) =>
      q.where('target_id', '=', approval.target!.id).where('role', '=', approval.role!),
    )
    .executeTakeFirst();
}

export function decideApproval(
  db: Db,
  id: string,
  decision: {
    status: Exclude<ApprovalStatus, 'pending'>;
    by: { id: string; label: string } | null;
    at: Date;
  },
): Promise<ApprovalRow> {
  return db
    .updateTable('approvals')
    .set({
      status: decision.status,
      decided_by: decision.by?.id ?? null,
      decided_by_label: decision.by?.label ?? null,
      decided_at: decision.at,
    })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

export function recordOutcome(db: Db, id: string, outcome: Record<string, unknown>): Promise<ApprovalRow> {
  return db
    .updateTable('approvals')
    .set({ outcome: JSON.stringify(outcome) })
    .where('id', '=', id)
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Newest first: the pending ones, or those of one status, at most `limit`. */
export function listApprovals(
  db: Db,
  filter: { status: ApprovalStatus | undefined; limit: number },
): Promise<ApprovalRow[]> {
  return db
    .selectFrom('approvals')
    .selectAll()
    .$if(filter.status !== undefined, (q) => q.where('status', '=', filter.status!))
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .limit(filter.limit)
    .execute();
}

/**
 * Whether a second admin must approve: true once the deployment has had two admins (a trigger sets it,
 * migration 0025). Read after the admins are locked, so a grant being made alongside is seen.
 */
export async function twoAdminRuleHolds(trx: Transaction<Database>): Promise<boolean> {
  const row = await trx.selectFrom('approval_rule').select('two_admins_since').executeTakeFirst();
  return row !== undefined;
}

/** Every admin's address and language: each two-admin step is mailed to all of them. */
export function adminMailboxes(
  db: Db,
): Promise<{ id: string; email: string; preferred_language: ApprovalsLanguage }[]> {
  return db
    .selectFrom('users')
    .select(['id', 'email', 'preferred_language'])
    .where('role', '=', 'admin')
    .where('suspended_at', 'is', null)
    .orderBy('id')
    .execute();
}
type ApprovalsLanguage = Selectable<Database['users']>['preferred_language'];
