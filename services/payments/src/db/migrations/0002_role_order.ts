// When auth's role change happened, so an older event handled late (a redelivery) never undoes a newer
// one. Frozen in time: Kysely<any>, no application imports.
import type { Kysely, Migration } from 'kysely';

export const roleOrderMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('users').addColumn('role_changed_at', 'timestamptz').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('users').dropColumn('role_changed_at').execute();
  },
};
