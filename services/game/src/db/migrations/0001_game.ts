import { sql, type Kysely, type Migration } from 'kysely';

type AnyDb = Kysely<any>;

export const gameMigration: Migration = {
  async up(db: AnyDb) {
    // Users as auth announces them. granted_clicks is the net balance of granted clicks (sign-up grant
    // and milestone rewards, minus their spends) that survives rounds. version orders role/name updates.
    await db.schema
      .createTable('users')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('username', 'text')
      .addColumn('role', 'text', (c) => c.notNull())
      .addColumn('granted_clicks', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('version', 'bigint', (c) => c.notNull().defaultTo(1))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('deleted_at', 'timestamptz')
      .execute();

    // Purchased clicks and the pass belong to one round: credited by purchases, spent by clicks.
    await db.schema
      .createTable('user_rounds')
      .addColumn('user_id', 'uuid', (c) => c.notNull())
      .addColumn('round', 'bigint', (c) => c.notNull())
      .addColumn('purchased_clicks', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('purchased_spent', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('pass', 'boolean', (c) => c.notNull().defaultTo(false))
      .addPrimaryKeyConstraint('user_rounds_pk', ['user_id', 'round'])
      .execute();

    await db.schema
      .createTable('purchases')
      .addColumn('purchase_id', 'uuid', (c) => c.primaryKey())
      .addColumn('user_id', 'uuid', (c) => c.notNull())
      .addColumn('round', 'bigint', (c) => c.notNull())
      .addColumn('pack_id', 'text', (c) => c.notNull())
      .addColumn('clicks', 'bigint')
      .addColumn('unlimited', 'boolean', (c) => c.notNull())
      .addColumn('pot_share_cents', 'bigint', (c) => c.notNull())
      .addColumn('applied_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema.createIndex('purchases_round').on('purchases').column('round').execute();

    // One row per round: how far its counter is known to have gone, and who clicked last.
    await db.schema
      .createTable('rounds')
      .addColumn('round', 'bigint', (c) => c.primaryKey())
      .addColumn('clicks', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('last_click_user_id', 'uuid')
      .addColumn('closed_at', 'timestamptz')
      .execute();

    await db.schema
      .createTable('winners')
      .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
      .addColumn('round', 'bigint', (c) => c.notNull().unique())
      .addColumn('user_id', 'uuid')
      .addColumn('username', 'text')
      .addColumn('pot_cents', 'bigint', (c) => c.notNull())
      .addColumn('clicks', 'bigint', (c) => c.notNull())
      .addColumn('won_at', 'timestamptz', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('winners_user').on('winners').column('user_id').execute();

    // The write-behind journal's high-water mark per Redis epoch (a new epoch starts at each rebuild).
    await db.schema
      .createTable('journal_cursor')
      .addColumn('epoch', 'text', (c) => c.primaryKey())
      .addColumn('seq', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
  },
  async down(db: AnyDb) {
    for (const table of ['journal_cursor', 'winners', 'rounds', 'purchases', 'user_rounds', 'users'])
      await db.schema.dropTable(table).execute();
  },
};
