// Indexes for reading the record by time: the game's reconciliation asks for purchases completed since a
// moment (the ledger's purchase transactions by time), and retention deletes published outbox rows and
// processed-event marks older than its horizon. Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const reconcileRetentionMigration: Migration = {
  async up(db: Kysely<any>) {
    await sql`create index if not exists ledger_transactions_kind_time on ledger_transactions (kind, created_at)`.execute(
      db,
    );
    await sql`create index if not exists outbox_published on outbox (published_at) where published_at is not null`.execute(
      db,
    );
    await sql`create index if not exists processed_events_time on processed_events (processed_at)`.execute(
      db,
    );
  },
  async down(db: Kysely<any>) {
    await sql`drop index if exists processed_events_time`.execute(db);
    await sql`drop index if exists outbox_published`.execute(db);
    await sql`drop index if exists ledger_transactions_kind_time`.execute(db);
  },
};
