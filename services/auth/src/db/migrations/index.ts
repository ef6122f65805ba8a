// Migrations in order. Frozen in time: they take Kysely<any> and never import application code.
import { kitMigrations } from '@omc/service-kit';
import type { Migration } from 'kysely';
import { usersMigration } from './0001_users.js';
import { bootstrapMigration } from './0002_bootstrap.js';
import { accountsMigration } from './0003_accounts.js';
import { emailVerificationMigration } from './0004_email_verification.js';
import { emailChangesMigration } from './0005_email_changes.js';
import { securityVersionMigration } from './0006_security_version.js';
import { emailCanonicalMigration } from './0007_email_canonical.js';
import { retentionMigration } from './0012_retention.js';
import { roleVersionsMigration } from './0010_role_versions.js';
import { adminToolsMigration } from './0015_admin_tools.js';
import { linksMintedAtSendMigration } from './0020_links_minted_at_send.js';
import { securityEpochMigration } from './0023_security_epoch.js';
import { approvalsMigration } from './0025_approvals.js';

export const migrations: Record<string, Migration> = {
  ...kitMigrations,
  '0001_users': usersMigration,
  '0002_bootstrap': bootstrapMigration,
  '0003_accounts': accountsMigration,
  '0004_email_verification': emailVerificationMigration,
  '0005_email_changes': emailChangesMigration,
  '0006_security_version': securityVersionMigration,
  '0007_email_canonical': emailCanonicalMigration,
  '0010_role_versions': roleVersionsMigration,
  '0012_retention': retentionMigration,
  '0015_admin_tools': adminToolsMigration,
  '0020_links_minted_at_send': linksMintedAtSendMigration,
  '0023_security_epoch': securityEpochMigration,
  '0025_approvals': approvalsMigration,
};
