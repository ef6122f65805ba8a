import { sql, type Kysely, type Migration } from 'kysely';

// The fence between Redis and Postgres: the generation (and epoch) of the Redis state that Postgres
// accepts writes from, and beside each journal cursor the fingerprint of the last entry applied, so a
// Redis that came back older (a restored copy, a lagging replica) is recognised instead of trusted.
export const stateGenerationMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('state_generation')
      .addColumn('id', 'smallint', (c) => c.primaryKey().check(sql`id = 1`))
      .addColumn('generation', 'bigint', (c) => c.notNull())
      .addColumn('epoch', 'text', (c) => c.notNull())
      .addColumn('changed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema.alterTable('journal_cursor').addColumn('last_entry', 'text').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.alterTable('journal_cursor').dropColumn('last_entry').execute();
    await db.schema.dropTable('state_generation').execute();
  },
};
