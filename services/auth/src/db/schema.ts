import type { ApprovalKind, ApprovalStatus, Language, Role } from '@omc/contracts';
import type { OutboxTable } from '@omc/service-kit';
import type { ColumnType, Generated } from 'kysely';

export interface UsersTable {
  id: string;
  username: string;
  email: string;
  password_hash: string;
  role: ColumnType<Role, Role | undefined, Role>;
  preferred_language: ColumnType<Language, Language | undefined, Language>;
  email_verified_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  /** canonicalEmail(email): what uniqueness and look-ups compare. */
  email_canonical: string;
  /** Raised by every security event; access tokens carry it as `sv`. */
  security_version: Generated<number>;
  /** Raised by every security event (security-events.ts): spends links other services mailed. */
  security_epoch: Generated<number>;
  /** The user's last role change in auth's sequence `role_versions` (0: never changed). bigint, read as a string. */
  role_version: ColumnType<string, never, never>;
  suspended_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  suspended_reason: ColumnType<string | null, string | null | undefined, string | null>;
  suspended_by: ColumnType<string | null, string | null | undefined, string | null>;
  created_at: Generated<Date>;
  updated_at: Generated<Date>;
}

/** Append-only (a trigger refuses UPDATE, DELETE and TRUNCATE). */
export interface AuditLogTable {
  id: Generated<string>;
  at: Generated<Date>;
  action: string;
  actor_id: string | null;
  actor_label: string | null;
  target_id: string | null;
  target_label: string | null;
  detail: ColumnType<Record<string, unknown>, string | undefined, never>;
  ip: string | null;
}

export interface RefreshTokensTable {
  id: string;
  user_id: string;
  family_id: string;
  token_hash: string;
  created_at: Generated<Date>;
  expires_at: Date;
  rotated_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  revoked_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface BootstrapAdminTable {
  singleton: ColumnType<boolean, boolean | undefined, never>;
  user_id: string | null;
  created_at: Generated<Date>;
}

export interface PasswordResetTokensTable {
  id: string;
  user_id: string;
  /** sha256 of the link's token, set when the mailer mints it (null until then). */
  token_hash: string | null;
  created_at: Generated<Date>;
  expires_at: Date;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface EmailChangesTable {
  id: string;
  user_id: string;
  old_email: string;
  old_email_verified_at: Date | null;
  new_email: string;
  /** sha256 of each link's token, set when the mailer mints it (null until then). */
  confirm_token_hash: string | null;
  undo_token_hash: string | null;
  created_at: Generated<Date>;
  expires_at: Date;
  undo_expires_at: Date;
  confirmed_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  cancelled_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  undone_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface SessionsTable {
  family_id: string;
  user_id: string;
  user_agent: string | null;
  ip: string | null;
  created_at: Generated<Date>;
  last_used_at: ColumnType<Date, Date | undefined, Date>;
}

export interface MailQueueTable {
  id: string;
  event_id: string;
  kind: string;
  recipient: string;
  subject: string | null;
  /** Only mail queued by older auth, rendered with its link; null once sent. */
  text: string | null;
  html: string | null;
  language: string | null;
  /** What the template interpolates (no secret); the link is minted at send. */
  params: ColumnType<Record<string, unknown> | null, string | null | undefined, never>;
  /** Which link to mint at send ({ kind, ref }), or null for a mail without one. */
  link: ColumnType<{ kind: string; ref: string } | null, string | null | undefined, never>;
  /** Set instead of sent_at when the mail's link may no longer be used (spent, cancelled, expired). */
  dropped_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  created_at: Generated<Date>;
  next_attempt_at: ColumnType<Date, Date | undefined, Date>;
  attempts: Generated<number>;
  last_error: string | null;
  sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

/** A two-admin request (approvals.service.ts). */
export interface ApprovalsTable {
  id: string;
  kind: ApprovalKind;
  status: ColumnType<ApprovalStatus, ApprovalStatus | undefined, ApprovalStatus>;
  requested_by: string;
  requested_by_label: string;
  target_id: string | null;
  target_label: string | null;
  role: Role | null;
  created_at: Date;
  expires_at: Date;
  decided_by: ColumnType<string | null, string | null | undefined, string | null>;
  decided_by_label: ColumnType<string | null, string | null | undefined, string | null>;
  decided_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  outcome: ColumnType<Record<string, unknown> | null, string | null | undefined, string | null>;
}

/** One row once the deployment has had two admins: from then on the two-admin rule holds (0025). */
export interface ApprovalRuleTable {
  id: Generated<boolean>;
  two_admins_since: Date;
}

export interface Database extends OutboxTable {
  approvals: ApprovalsTable;
  approval_rule: ApprovalRuleTable;
  password_reset_tokens: PasswordResetTokensTable;
  email_changes: EmailChangesTable;
  sessions: SessionsTable;
  mail_queue: MailQueueTable;
  bootstrap_admin: BootstrapAdminTable;
  users: UsersTable;
  audit_log: AuditLogTable;
  refresh_tokens: RefreshTokensTable;
}
