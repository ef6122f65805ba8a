// The operator's tools: a suspension on the account (when, why, by whom), indexes that let the admin
// list search a name or email prefix and page in O(page), and the append-only audit log, which a
// trigger keeps append-only whatever code runs (no route edits or deletes entries; neither can SQL).
// Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const adminToolsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('users')
      .addColumn('suspended_at', 'timestamptz')
      .addColumn('suspended_reason', 'text')
      .addColumn('suspended_by', 'uuid')
      .execute();
    // "C" collation: byte order, so one btree serves both `LIKE 'prefix%'` and ORDER BY for the cursor.
    await sql`CREATE INDEX users_username_search ON users ((lower(username) COLLATE "C"), id)`.execute(db);
    await sql`CREATE INDEX users_email_search ON users ((lower(email) COLLATE "C"), id)`.execute(db);

    await db.schema
      .createTable('audit_log')
      .addColumn('id', 'bigserial', (c) => c.primaryKey())
      .addColumn('at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('action', 'text', (c) => c.notNull())
      // No foreign keys: an entry outlives the accounts it names; the labels keep who they were.
      .addColumn('actor_id', 'uuid')
      .addColumn('actor_label', 'text')
      .addColumn('target_id', 'uuid')
      .addColumn('target_label', 'text')
      .addColumn('detail', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
      .addColumn('ip', 'text')
      .execute();
    await db.schema.createIndex('audit_log_target').on('audit_log').columns(['target_id', 'id']).execute();
    await db.schema.createIndex('audit_log_actor').on('audit_log').columns(['actor_id', 'id']).execute();
    await db.schema.createIndex('audit_log_action').on('audit_log').columns(['action', 'id']).execute();
    await sql`
      CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        RAISE EXCEPTION 'audit_log is append-only';
      END $$`.execute(db);
    await sql`
      CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE OR TRUNCATE ON audit_log
      FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only()`.execute(db);
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('audit_log').execute();
    await sql`DROP FUNCTION audit_log_append_only()`.execute(db);
    await sql`DROP INDEX users_email_search`.execute(db);
    await sql`DROP INDEX users_username_search`.execute(db);
    await db.schema
      .alterTable('users')
      .dropColumn('suspended_at')
      .dropColumn('suspended_reason')
      .dropColumn('suspended_by')
      .execute();
  },
};
