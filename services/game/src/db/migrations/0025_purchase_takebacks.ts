// What a refunded purchase's take-back removed (the clicks, the pass, the pot share), once per purchase:
// the record a rebuild of Redis reads the round's pot and the buyer's balance from.
// Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const purchaseTakebacksMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('purchase_takebacks')
      .addColumn('purchase_id', 'uuid', (c) => c.primaryKey())
      .addColumn('user_id', 'uuid', (c) => c.notNull())
      .addColumn('round', 'bigint', (c) => c.notNull())
      .addColumn('round_in_play', 'boolean', (c) => c.notNull())
      .addColumn('clicks', 'integer', (c) => c.notNull().check(sql`clicks >= 0`))
      .addColumn('pass', 'boolean', (c) => c.notNull())
      .addColumn('pot_cents', 'bigint', (c) => c.notNull().check(sql`pot_cents >= 0`))
      .addColumn('taken_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await sql`create index purchase_takebacks_round on purchase_takebacks (round)`.execute(db);
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('purchase_takebacks').execute();
  },
};
