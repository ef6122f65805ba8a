import type { Kysely, Migration } from 'kysely';

// The version (auth's sequence) of the role the game holds: role changes are ordered by it, never by a
// date a caller sent. Null until the first versioned change; older, unversioned events are then ignored.
export const roleVersionsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema.alterTable('users').addColumn('role_version', 'bigint').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('users').dropColumn('role_version').execute();
  },
};
