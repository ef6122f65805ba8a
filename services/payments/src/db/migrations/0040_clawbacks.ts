// Clawbacks: the provider took a purchase's money back (its settlement declined, a dispute lost), so the
// purchase's unspent clicks and pot share are taken back and what was already spent is the house's loss.
// One row per purchase, written with the notification that started it; the ledger learns a fifth kind of
// movement, `clawback`. Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const clawbacksMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('clawbacks')
      .addColumn('purchase_id', 'uuid', (c) => c.primaryKey().references('purchases.id'))
      .addColumn('cause', 'text', (c) =>
        c.notNull().check(sql`cause in ('settlement_declined', 'dispute_lost')`),
      )
      .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('taking_back', 'completed')`))
      .addColumn('amount_cents', 'integer', (c) => c.notNull().check(sql`amount_cents > 0`))
      .addColumn('clicks_taken', 'integer')
      .addColumn('clicks_spent', 'integer')
      .addColumn('pass_taken', 'boolean')
      .addColumn('pot_cents', 'integer')
      .addColumn('house_cents', 'integer')
      .addColumn('loss_cents', 'integer')
      .addColumn('uncovered_cents', 'integer')
      .addColumn('error', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('completed_at', 'timestamptz')
      .execute();
    await sql`create index clawbacks_unfinished on clawbacks (updated_at) where status = 'taking_back'`.execute(
      db,
    );
    // A winner's purchases that may still be taken back (the payout hold), and the settlement pass.
    await sql`create index purchases_unsettled on purchases (user_id, created_at)
      where status = 'succeeded' and (settlement_status is null or settlement_status not in ('settled', 'settlement_confirmed'))`.execute(
      db,
    );
    await sql`alter table ledger_transactions drop constraint ledger_transactions_kind_check`.execute(db);
    await sql`alter table ledger_transactions add constraint ledger_transactions_kind_check
      check (kind in ('purchase', 'round_won', 'payout', 'refund', 'clawback'))`.execute(db);
  },
  async down(db: Kysely<any>) {
    // With clawback movements posted, going down is refused here (the check fails) rather than losing them.
    await sql`alter table ledger_transactions drop constraint ledger_transactions_kind_check`.execute(db);
    await sql`alter table ledger_transactions add constraint ledger_transactions_kind_check
      check (kind in ('purchase', 'round_won', 'payout', 'refund'))`.execute(db);
    await sql`drop index if exists purchases_unsettled`.execute(db);
    await db.schema.dropTable('clawbacks').execute();
  },
};
