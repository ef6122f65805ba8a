// Migrations in order. Frozen in time: they take Kysely<any> and never import application code.
import { kitMigrations } from '@omc/service-kit';
import type { Migration } from 'kysely';
import { paymentsMigration } from './0001_payments.js';
import { roleOrderMigration } from './0002_role_order.js';
import { reconcileRetentionMigration } from './0006_reconcile_retention.js';
import { accountBalancesMigration } from './0009_account_balances.js';
import { payoutEmailChangesMigration } from './0020_payout_email_changes.js';
import { refundsMigration } from './0025_refunds.js';
import { payoutsByUserMigration } from './0030_payouts_by_user.js';
import { moneyAuditMigration } from './0035_money_audit.js';
import { clawbacksMigration } from './0040_clawbacks.js';
import { payoutItemsMigration } from './0041_payout_items.js';

export const migrations: Record<string, Migration> = {
  ...kitMigrations,
  '0001_payments': paymentsMigration,
  '0002_role_order': roleOrderMigration,
  '0006_reconcile_retention': reconcileRetentionMigration,
  '0009_account_balances': accountBalancesMigration,
  '0020_payout_email_changes': payoutEmailChangesMigration,
  '0025_refunds': refundsMigration,
  '0030_payouts_by_user': payoutsByUserMigration,
  '0035_money_audit': moneyAuditMigration,
  '0040_clawbacks': clawbacksMigration,
  '0041_payout_items': payoutItemsMigration,
};
