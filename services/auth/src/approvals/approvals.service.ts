// Two admins for the acts that hand over the game or its money: granting superuser or admin, and paying
// out the house pot. The first admin (with their password, or a password sign-in within
// REAUTH_WINDOW_SECONDS) opens a request; another admin, with theirs, approves or refuses it before
// APPROVAL_TTL_HOURS pass. Each step is written to the audit log and mailed to every admin, in the
// transaction that takes it. A grant is carried out in the approval's transaction; a house payout is made
// by payments (house-payout.ts) once the approval is committed, and its outcome is recorded on the request.
import { randomUUID } from 'node:crypto';
import {
  ERROR_CODE,
  type Approval,
  type ApprovalStatus,
  type CollectResponse,
  type Language,
  type Role,
} from '@omc/contracts';
import { AppError, notFound, type Caller } from '@omc/service-kit';
import type { Transaction } from 'kysely';
import { appendAudit, auditParty } from '../audit/audit.repo.js';
import type { AuthBase } from '../base.js';
import type { Database } from '../db/schema.js';
import { queueMail } from '../mail/mail-queue.repo.js';
import { renderMail, type MailParams } from '../mail/templates.js';
import { applyRole, type RoleOutcome } from '../admin/admin.service.js';
import type { Actor } from '../admin/suspension.service.js';
import type { AccountsService } from '../users/accounts.service.js';
import { findUserById, lockAdmins, type UserRow } from '../users/users.repo.js';
import {
  adminMailboxes,
  decideApproval,
  findOpenDuplicate,
  insertApproval,
  listApprovals,
  lockApproval,
  lockOverdue,
  recordOutcome,
  twoAdminRuleHolds,
  type ApprovalRow,
} from './approvals.repo.js';
import { payOutHouse } from './house-payout.js';

/** The admin at the keyboard: their account, when their session signed in, the password they typed. */
export interface Acting {
  user: UserRow;
  signedInAt: Date | null;
  currentPassword: string | undefined;
  ip: string;
}

export type Act = { kind: 'role'; target: UserRow; role: Role } | { kind: 'housePayout' };

type Step = NonNullable<MailParams['step']>;

const party = (id: string | null, username: string | null) => ({ id, username });

export function approvalView(row: ApprovalRow): Approval {
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    requestedBy: party(row.requested_by, row.requested_by_label),
    target: row.target_id || row.target_label ? party(row.target_id, row.target_label) : null,
    role: row.role,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at.toISOString(),
    decidedBy: row.decided_by || row.decided_by_label ? party(row.decided_by, row.decided_by_label) : null,
    decidedAt: row.decided_at?.toISOString() ?? null,
    outcome: row.outcome,
  };
}

const AUDIT_OF: Record<
  Step,
  'approval.requested' | 'approval.approved' | 'approval.failed' | 'approval.refused' | 'approval.expired'
> = {
  requested: 'approval.requested',
  approved: 'approval.approved',
  failed: 'approval.failed',
  refused: 'approval.refused',
  expired: 'approval.expired',
};

const closed = (row: ApprovalRow) =>
  new AppError(
    ERROR_CODE.APPROVAL_CLOSED,
    409,
    row.status === 'expired'
      ? 'This request has expired; nothing was done. Ask again if it is still wanted.'
      : `This request was already ${row.status}; nothing more was done.`,
  );

/** The request locked for a decision by `acting`: refused if theirs, decided or expired. */
async function lockForDecision(trx: Transaction<Database>, id: string, acting: Acting, now: Date) {
  const row = await lockApproval(trx, id);
  if (!row) throw notFound('No such approval request');
  if (row.requested_by === acting.user.id)
    throw new AppError(
      ERROR_CODE.APPROVAL_OWN_REQUEST,
      403,
      'Another admin must approve or refuse this request: you opened it',
    );
  if (row.status !== 'pending' || row.expires_at <= now)
    throw closed(row.status === 'pending' ? { ...row, status: 'expired' } : row);
  return row;
}

export interface ApprovalResult {
  approval: Approval;
  role?: RoleOutcome & { role: Role };
  payout?: CollectResponse;
}

/** An opened request: `pending` until another admin decides, or carried out at once (one admin). */
export interface Opened extends ApprovalResult {
  pending: boolean;
}

export class ApprovalsService {
  constructor(
    private readonly base: AuthBase,
    private readonly accounts: AccountsService,
  ) {}

  /**
   * Writes one step to the audit log and queues its mail to every admin, in the step's transaction (an
   * approved payout is audited when approved and mailed once its outcome is known: `only`).
   */
  private async recordStep(
    trx: Transaction<Database>,
    row: ApprovalRow,
    step: Step,
    by: { id: string; username: string; ip: string } | null,
    extra: {
      reason?: string;
      outcome?: Record<string, unknown>;
      only?: 'audit' | 'mail';
      alone?: boolean;
    } = {},
  ): Promise<void> {
    if (extra.only !== 'mail')
      await appendAudit(trx, {
        action: AUDIT_OF[step],
        actor: by ? auditParty(by) : null,
        target: row.target_id ? { id: row.target_id, label: row.target_label } : null,
        detail: {
          approvalId: row.id,
          kind: row.kind,
          requestedBy: row.requested_by_label,
          ...(row.role ? { role: row.role } : {}),
          ...(extra.reason ? { reason: extra.reason } : {}),
          ...(extra.outcome ? { outcome: extra.outcome } : {}),
          ...(extra.alone ? { alone: true } : {}),
        },
        ip: by?.ip ?? null,
      });
    const params: MailParams = {
      step,
      act: row.kind,
      requester: row.requested_by_label,
      hours: this.base.deps.config.APPROVAL_TTL_HOURS,
      ...(row.role ? { role: row.role } : {}),
      ...(row.target_label ? { target: row.target_label } : {}),
      ...(by ? { decider: by.username } : {}),
      ...(extra.reason ? { reason: extra.reason } : {}),
    };
    if (extra.only === 'audit') return;
    const now = this.base.deps.clock();
    for (const admin of await adminMailboxes(trx)) {
      const language = admin.preferred_language as Language;
      await queueMail(
        trx,
        {
          id: `approval:${row.id}:${step}:${admin.id}`,
          eventId: `approval:${row.id}:${step}`,
          kind: 'approvalStep',
          recipient: admin.email,
          language,
          subject: renderMail('approvalStep', language, params).subject,
          params: params as Record<string, unknown>,
          link: null,
        },
        now,
      );
    }
  }

  /**
   * Opens a request for the act (202 to the caller; nothing is done yet). The same act asked again while
   * its request is pending answers that request, without a second one. Until the deployment has had two
   * admins nobody else could approve, so the act is carried out at once on the admin's fresh password,
   * recorded as a request the admin approved alone (docs/auth.md).
   */
  async openApproval(acting: Acting, act: Act, caller: Caller): Promise<Opened> {
    const { user } = acting;
    await this.accounts.requireRecentAuth(user, acting.signedInAt, acting.currentPassword, acting.ip);
    const now = new Date(this.base.deps.clock());
    const request = {
      kind: act.kind,
      requestedBy: { id: user.id, label: user.username },
      target: act.kind === 'role' ? { id: act.target.id, label: act.target.username } : null,
      role: act.kind === 'role' ? act.role : null,
    };
    const opened = await this.base.deps.db.transaction().execute(async (trx) => {
      await lockAdmins(trx);
      const alone = !(await twoAdminRuleHolds(trx));
      const open = alone ? undefined : await findOpenDuplicate(trx, request, now);
      if (open) return { row: open };
      const inserted = await insertApproval(trx, {
        id: randomUUID(),
        ...request,
        createdAt: now,
        expiresAt: new Date(now.getTime() + this.base.deps.config.APPROVAL_TTL_HOURS * 3_600_000),
      });
      await this.recordStep(trx, inserted, 'requested', { ...user, ip: acting.ip });
      if (!alone) return { row: inserted };
      return { row: inserted, done: await this.carryOut(trx, inserted, acting, user, now, true) };
    });
    this.base.mail.notify();
    if (!opened.done) return { pending: true, approval: approvalView(opened.row) };
    this.base.relay.notify();
    const { approved, role } = opened.done;
    if (approved.kind === 'role')
      return { pending: false, approval: approvalView(approved), ...(role ? { role } : {}) };
    return { pending: false, ...(await this.payHouse(acting, approved, user, caller)) };
  }

  /** Marks pending requests past their expiry as expired (audited and mailed). Returns how many. */
  async expireOverdue(): Promise<number> {
    const now = new Date(this.base.deps.clock());
    const expired = await this.base.deps.db.transaction().execute(async (trx) => {
      const overdue = await lockOverdue(trx, now, 100);
      for (const row of overdue) {
        const decided = await decideApproval(trx, row.id, { status: 'expired', by: null, at: now });
        await this.recordStep(trx, decided, 'expired', null);
      }
      return overdue.length;
    });
    if (expired > 0) this.base.mail.notify();
    return expired;
  }

  async approvalsList(status: ApprovalStatus | undefined): Promise<Approval[]> {
    await this.expireOverdue();
    return (await listApprovals(this.base.deps.db, { status, limit: 100 })).map(approvalView);
  }

  async refuseApproval(acting: Acting, id: string, reason: string | undefined): Promise<Approval> {
    await this.expireOverdue();
    const now = new Date(this.base.deps.clock());
    const row = await this.base.deps.db.transaction().execute(async (trx) => {
      await lockForDecision(trx, id, acting, now);
      const decided = await decideApproval(trx, id, {
        status: 'refused',
        by: { id: acting.user.id, label: acting.user.username },
        at: now,
      });
      await this.recordStep(
        trx,
        decided,
        'refused',
        { ...acting.user, ip: acting.ip },
        reason ? { reason } : {},
      );
      return decided;
    });
    this.base.mail.notify();
    return approvalView(row);
  }

  /**
   * Approves and carries out the request. Needs the approver's own recent password; the approver may not be
   * the admin who asked, and that admin must still be an admin.
   */
  async approveApproval(acting: Acting, id: string, caller: Caller): Promise<ApprovalResult> {
    await this.accounts.requireRecentAuth(acting.user, acting.signedInAt, acting.currentPassword, acting.ip);
    await this.expireOverdue();
    const now = new Date(this.base.deps.clock());
    const decided = await this.base.deps.db.transaction().execute(async (trx) => {
      const row = await lockForDecision(trx, id, acting, now);
      const requester = await findUserById(trx, row.requested_by);
      if (!requester || requester.role !== 'admin' || requester.suspended_at)
        throw new AppError(
          ERROR_CODE.APPROVAL_CLOSED,
          409,
          'The admin who asked is no longer an admin: refuse this request; nothing was done',
        );
      return this.carryOut(trx, row, acting, requester, now, false);
    });
    this.base.relay.notify();
    this.base.mail.notify();
    if (decided.approved.kind === 'role')
      return { approval: approvalView(decided.approved), ...(decided.role ? { role: decided.role } : {}) };
    return this.payHouse(acting, decided.approved, decided.requester, caller);
  }

  /**
   * Approves the request and, for a grant, makes it, in the caller's transaction; a house payout is made
   * after the commit (payHouse). `alone`: the requester approved it, the deployment having one admin.
   */
  private async carryOut(
    trx: Transaction<Database>,
    row: ApprovalRow,
    acting: Acting,
    requester: UserRow,
    now: Date,
    alone: boolean,
  ): Promise<{ approved: ApprovalRow; requester: UserRow; role?: ApprovalResult['role'] }> {
    const actor: Actor = { id: acting.user.id, username: acting.user.username, ip: acting.ip };
    let role: ApprovalResult['role'];
    if (row.kind === 'role') {
      const target = row.target_id ? await findUserById(trx, row.target_id) : undefined;
      if (!target) throw notFound('The account this request was for no longer exists; refuse it');
      const outcome = await applyRole(trx, target.email, row.role!, actor, {
        approvalId: row.id,
        ...(alone ? { alone: true } : {}),
      });
      role = { ...outcome, role: row.role! };
    }
    const by = { id: acting.user.id, label: acting.user.username };
    const approved = await decideApproval(trx, row.id, { status: 'approved', by, at: now });
    // A payout's approval is audited now (before payments is asked), mailed with its outcome.
    await this.recordStep(
      trx,
      approved,
      'approved',
      { ...acting.user, ip: acting.ip },
      {
        ...(row.kind === 'housePayout' ? { only: 'audit' as const } : {}),
        ...(alone ? { alone } : {}),
      },
    );
    return { approved, requester, ...(role ? { role } : {}) };
  }

  /** After the approval is committed: payments pays; the outcome is recorded, audited and mailed. */
  private async payHouse(
    acting: Acting,
    approved: ApprovalRow,
    requester: UserRow,
    caller: Caller,
  ): Promise<ApprovalResult> {
    const paid = await payOutHouse(this.base.deps, caller, approved.id, requester);
    const outcome = paid.ok ? { ...paid.payout } : { error: paid.error.message };
    const row = await this.base.deps.db.transaction().execute(async (trx) => {
      const recorded = await recordOutcome(trx, approved.id, outcome);
      const by = { ...acting.user, ip: acting.ip };
      await this.recordStep(
        trx,
        recorded,
        paid.ok ? 'approved' : 'failed',
        by,
        paid.ok ? { only: 'mail' } : { outcome, reason: paid.error.message },
      );
      if (paid.ok)
        await appendAudit(trx, {
          action: 'house.collected',
          actor: auditParty(requester),
          target: null,
          detail: { ...paid.payout, approvalId: approved.id, approvedBy: acting.user.username },
          ip: acting.ip,
        });
      return recorded;
    });
    this.base.mail.notify();
    if (!paid.ok) throw paid.error;
    return { approval: approvalView(row), payout: paid.payout };
  }
}
