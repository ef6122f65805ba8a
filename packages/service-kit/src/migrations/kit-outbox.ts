// The kit's own tables (the outbox and the processed-event marks), frozen in time: every service that
// publishes or consumes durable events includes these in its migration list.
import { sql, type Kysely, type Migration } from 'kysely';

/** Migrations every service that publishes or consumes durable events includes in its own list. */
export const kitMigrations: Record<string, Migration> = {
  '0000_kit_outbox': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('outbox')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('payload', 'jsonb', (c) => c.notNull())
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('published_at', 'timestamptz')
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`create index outbox_unpublished on outbox (created_at) where published_at is null`.execute(
        db,
      );
      await db.schema
        .createTable('processed_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('processed_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.dropTable('processed_events').execute();
      await db.schema.dropTable('outbox').execute();
    },
  },
  '0000_kit_outbox_claim': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('outbox').addColumn('claimed_until', 'timestamptz').execute();
    },
    async down(db: Kysely<any>) {
      await db.schema.alterTable('outbox').dropColumn('claimed_until').execute();
    },
  },
};
