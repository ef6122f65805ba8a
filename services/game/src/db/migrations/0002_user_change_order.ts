import type { Kysely, Migration } from 'kysely';

// When auth's role and name changes happened, so an older event handled late never undoes a newer one.
export const userChangeOrderMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('users')
      .addColumn('role_changed_at', 'timestamptz')
      .addColumn('renamed_at', 'timestamptz')
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('users').dropColumn('role_changed_at').dropColumn('renamed_at').execute();
  },
};
