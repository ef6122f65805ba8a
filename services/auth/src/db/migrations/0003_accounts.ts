// Password-reset tokens and the account's sessions (refresh families with where and how they signed in),
// and the mail queue the notifications module sends from. Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const accountsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('password_reset_tokens')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .addColumn('used_at', 'timestamptz')
      .execute();
    await db.schema
      .createIndex('password_reset_tokens_user')
      .on('password_reset_tokens')
      .column('user_id')
      .execute();

    await db.schema
      .createTable('sessions')
      .addColumn('family_id', 'uuid', (c) => c.primaryKey())
      .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('user_agent', 'text')
      .addColumn('ip', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('last_used_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    await db.schema.createIndex('sessions_user').on('sessions').column('user_id').execute();
    // Sessions started before this table: listed without device or address.
    await sql`insert into sessions (family_id, user_id, created_at, last_used_at)
      select family_id, min(user_id::text)::uuid, min(created_at), max(created_at) from refresh_tokens
      group by family_id on conflict do nothing`.execute(db);

    await db.schema
      .createTable('mail_queue')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('event_id', 'text', (c) => c.notNull())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('recipient', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('text', 'text', (c) => c.notNull())
      .addColumn('html', 'text', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('next_attempt_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('last_error', 'text')
      .addColumn('sent_at', 'timestamptz')
      .execute();
    await sql`create index mail_queue_due on mail_queue (next_attempt_at) where sent_at is null`.execute(db);
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('mail_queue').execute();
    await db.schema.dropTable('sessions').execute();
    await db.schema.dropTable('password_reset_tokens').execute();
  },
};
