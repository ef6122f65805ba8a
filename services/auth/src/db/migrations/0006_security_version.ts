// The account's security version: every access token carries the one it was signed under, and a security
// event (password change or reset, email confirm or undo, sign out everywhere) raises it, so every token
// signed before is refused on account and money routes at once. Frozen in time.
import type { Kysely, Migration } from 'kysely';

export const securityVersionMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('users')
      .addColumn('security_version', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('users').dropColumn('security_version').execute();
  },
};
