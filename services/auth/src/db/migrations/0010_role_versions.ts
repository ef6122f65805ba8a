// Auth's own order of role changes: every change takes the next number of one sequence, and consumers
// (the game's direct call, the role event) apply a change only when its number is higher than the one
// they hold. No clock decides the order, so no caller's date can pin a role. Frozen in time: Kysely<any>.
import { sql, type Kysely, type Migration } from 'kysely';

export const roleVersionsMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql`create sequence role_versions as bigint`.execute(db);
    await db.schema
      .alterTable('users')
      .addColumn('role_version', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('users').dropColumn('role_version').execute();
    await sql`drop sequence role_versions`.execute(db);
  },
};
