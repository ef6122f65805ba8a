// Acts that need two admins: a request opened by one admin (a role grant of superuser or admin, or a
// house payout), decided by another before it expires. Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const approvalsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('approvals')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind IN ('role', 'housePayout')`))
      .addColumn('status', 'text', (c) =>
        c
          .notNull()
          .defaultTo('pending')
          .check(sql`status IN ('pending', 'approved', 'refused', 'expired')`),
      )
      // No foreign keys: a request outlives the accounts it names; the labels keep who they were.
      .addColumn('requested_by', 'uuid', (c) => c.notNull())
      .addColumn('requested_by_label', 'text', (c) => c.notNull())
      .addColumn('target_id', 'uuid')
      .addColumn('target_label', 'text')
      .addColumn('role', 'text')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull())
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .addColumn('decided_by', 'uuid')
      .addColumn('decided_by_label', 'text')
      .addColumn('decided_at', 'timestamptz')
      .addColumn('outcome', 'jsonb')
      .execute();
    await sql`CREATE INDEX approvals_pending ON approvals (expires_at) WHERE status = 'pending'`.execute(db);
    await db.schema.createIndex('approvals_created').on('approvals').columns(['created_at']).execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('approvals').execute();
  },
};
