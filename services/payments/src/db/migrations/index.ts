// Migrations in order. Frozen in time: they take Kysely<any> and never import application code.
import { kitMigrations } from '@omc/service-kit';
import type { Migration } from 'kysely';
import { paymentsMigration } from './0001_payments.js';

export const migrations: Record<string, Migration> = {
  ...kitMigrations,
  '0001_payments': paymentsMigration,
};
