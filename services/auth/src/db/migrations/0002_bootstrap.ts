// Remembers that the bootstrap admin was created, so later starts never act on whoever holds its
// name or email. Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const bootstrapMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('bootstrap_admin')
      .addColumn('singleton', 'boolean', (c) =>
        c
          .primaryKey()
          .defaultTo(true)
          .check(sql`singleton`),
      )
      .addColumn('user_id', 'uuid')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    // A database from before this table already had its admin ensured: count it as done.
    await sql`insert into bootstrap_admin (singleton, user_id)
      select true, (select id from users where role = 'admin' order by created_at limit 1)
      where exists (select 1 from users where role = 'admin')`.execute(db);
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('bootstrap_admin').execute();
  },
};
