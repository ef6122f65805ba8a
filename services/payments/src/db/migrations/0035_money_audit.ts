// The audit entry of a money step, written in the transaction of the step it records (a refund's is
// written with its completion and ledger movement): one row per action and subject, never lost to a
// crash after the money moved. Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const moneyAuditMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('money_audit')
      .addColumn('id', 'bigserial', (c) => c.primaryKey())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('subject_id', 'text', (c) => c.notNull())
      .addColumn('actor_user_id', 'uuid')
      .addColumn('target_user_id', 'uuid')
      .addColumn('ip', 'text')
      .addColumn('detail', 'jsonb', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addUniqueConstraint('money_audit_once', ['action', 'subject_id'])
      .execute();
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('money_audit').execute();
  },
};
