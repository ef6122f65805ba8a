// Email changes waiting for the new address, and those the old address may still undo. Tokens are stored
// as their sha256. Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const emailChangesMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('email_changes')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('old_email', 'text', (c) => c.notNull())
      .addColumn('old_email_verified_at', 'timestamptz')
      .addColumn('new_email', 'text', (c) => c.notNull())
      .addColumn('confirm_token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('undo_token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .addColumn('undo_expires_at', 'timestamptz', (c) => c.notNull())
      .addColumn('confirmed_at', 'timestamptz')
      .addColumn('cancelled_at', 'timestamptz')
      .addColumn('undone_at', 'timestamptz')
      .execute();
    await db.schema.createIndex('email_changes_user').on('email_changes').column('user_id').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('email_changes').execute();
  },
};
