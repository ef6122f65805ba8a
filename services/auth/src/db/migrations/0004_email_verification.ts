// When the account's current email was confirmed from a mailed link (null: not yet). Frozen in time.
import type { Kysely, Migration } from 'kysely';

export const emailVerificationMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('users').addColumn('email_verified_at', 'timestamptz').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('users').dropColumn('email_verified_at').execute();
  },
};
