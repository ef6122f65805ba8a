// Acts that need two admins: a request opened by one admin (a role grant of superuser or admin, or a
// house payout), decided by another before it expires. The rule holds from the moment the deployment
// first has two admins, whoever made them (a trigger latches it), and never lifts: demoting or suspending
// the other admins does not let one act alone. Frozen in time: Kysely<any>, no application imports.
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
    await sql`CREATE TABLE approval_rule (
      id boolean PRIMARY KEY DEFAULT true CHECK (id),
      two_admins_since timestamptz NOT NULL
    )`.execute(db);
    await sql`CREATE FUNCTION latch_two_admins() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF (SELECT count(*) FROM users WHERE role = 'admin') >= 2 THEN
          INSERT INTO approval_rule (id, two_admins_since) VALUES (true, now()) ON CONFLICT DO NOTHING;
        END IF;
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER users_two_admins AFTER INSERT OR UPDATE OF role ON users
      FOR EACH ROW WHEN (NEW.role = 'admin') EXECUTE FUNCTION latch_two_admins()`.execute(db);
    await sql`INSERT INTO approval_rule (id, two_admins_since)
      SELECT true, now() WHERE (SELECT count(*) FROM users WHERE role = 'admin') >= 2`.execute(db);
  },
  async down(db: Kysely<any>) {
    await sql`DROP TRIGGER users_two_admins ON users`.execute(db);
    await sql`DROP FUNCTION latch_two_admins()`.execute(db);
    await db.schema.dropTable('approval_rule').execute();
    await db.schema.dropTable('approvals').execute();
  },
};
