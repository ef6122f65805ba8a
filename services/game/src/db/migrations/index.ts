// Migrations in order. Frozen in time: they take Kysely<any> and never import application code.
import { kitMigrations } from '@omc/service-kit';
import type { Migration } from 'kysely';
import { gameMigration } from './0001_game.js';
import { userChangeOrderMigration } from './0002_user_change_order.js';
import { signupGrantMigration } from './0003_signup_grant.js';
import { stateGenerationMigration } from './0004_state_generation.js';
import { retentionMigration } from './0008_retention.js';
import { roleVersionsMigration } from './0011_role_versions.js';
import { purchaseTakebacksMigration } from './0025_purchase_takebacks.js';
import { suspensionsMigration } from './0030_suspensions.js';

export const migrations: Record<string, Migration> = {
  ...kitMigrations,
  '0001_game': gameMigration,
  '0002_user_change_order': userChangeOrderMigration,
  '0003_signup_grant': signupGrantMigration,
  '0004_state_generation': stateGenerationMigration,
  '0008_retention': retentionMigration,
  '0011_role_versions': roleVersionsMigration,
  '0025_purchase_takebacks': purchaseTakebacksMigration,
  '0030_suspensions': suspensionsMigration,
};
