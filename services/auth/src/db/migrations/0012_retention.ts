// Indexes for retention: published outbox rows, processed-event marks and sent mail are deleted by age.
// Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const retentionMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql`create index if not exists outbox_published on outbox (published_at) where published_at is not null`.execute(
      db,
    );
    await sql`create index if not exists processed_events_time on processed_events (processed_at)`.execute(
      db,
    );
    await sql`create index if not exists mail_queue_sent on mail_queue (sent_at) where sent_at is not null`.execute(
      db,
    );
  },
  async down(db: Kysely<any>) {
    await sql`drop index if exists mail_queue_sent`.execute(db);
    await sql`drop index if exists processed_events_time`.execute(db);
    await sql`drop index if exists outbox_published`.execute(db);
  },
};
