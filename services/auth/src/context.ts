// What the routes of auth share, in its own module so app.ts and the routes it registers do not import
// each other; the base the services are built on is in base.ts, so the services do not import this.
import type { AdminService } from './admin/admin.service.js';
import type { SuspensionService } from './admin/suspension.service.js';
import type { ApprovalsService } from './approvals/approvals.service.js';
import type { AuthBase } from './base.js';
import type { EmailChangeService } from './email-change/email-change.service.js';
import type { PasswordResetService } from './password-reset/password-reset.service.js';
import type { PayoutEmailService } from './payout-email/payout-email.service.js';
import type { ActiveSessionsService } from './sessions/active-sessions.service.js';
import type { AccountsService } from './users/accounts.service.js';
import type { VerificationService } from './verification/verification.service.js';

/** What the routes of this app share: the base plus the services built on it. */
export interface AuthContext extends AuthBase {
  accounts: AccountsService;
  /** Role changes one admin makes (a grant of superuser or admin goes through approvals). */
  admin: AdminService;
  suspension: SuspensionService;
  /** Two-admin requests. */
  approvals: ApprovalsService;
  emailChange: EmailChangeService;
  passwordReset: PasswordResetService;
  /** The mail of payments' payout email confirmation. */
  payoutEmail: PayoutEmailService;
  activeSessions: ActiveSessionsService;
  verification: VerificationService;
}
