// Users and refresh tokens. Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const usersMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('users')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('password_hash', 'text', (c) => c.notNull())
      .addColumn('role', 'text', (c) =>
        c
          .notNull()
          .defaultTo('standard')
          .check(sql`role in ('standard', 'superuser', 'admin')`),
      )
      .addColumn('preferred_language', 'text', (c) => c.notNull().defaultTo('es'))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .execute();
    // Case-insensitive uniqueness: "Alice" and "alice" are the same user, and so are their emails.
    await sql`create unique index users_username_lower on users (lower(username))`.execute(db);
    await sql`create unique index users_email_lower on users (lower(email))`.execute(db);
    await sql`create index users_admins on users (role) where role = 'admin'`.execute(db);

    await db.schema
      .createTable('refresh_tokens')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('family_id', 'uuid', (c) => c.notNull())
      .addColumn('token_hash', 'text', (c) => c.notNull().unique())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .addColumn('rotated_at', 'timestamptz')
      .addColumn('revoked_at', 'timestamptz')
      .execute();
    await db.schema.createIndex('refresh_tokens_family').on('refresh_tokens').column('family_id').execute();
    await db.schema.createIndex('refresh_tokens_user').on('refresh_tokens').column('user_id').execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('refresh_tokens').execute();
    await db.schema.dropTable('users').execute();
  },
};
