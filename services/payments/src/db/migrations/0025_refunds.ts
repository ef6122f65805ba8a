// Refunds of purchases (admin): one row per purchase, written before Braintree is asked, with the lease
// that lets one request at a time work on it; the ledger learns a fourth kind of movement, `refund`.
// Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const refundsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('refunds')
      .addColumn('purchase_id', 'uuid', (c) => c.primaryKey().references('purchases.id'))
      .addColumn('status', 'text', (c) =>
        c.notNull().check(sql`status in ('returning', 'returned', 'completed', 'failed')`),
      )
      .addColumn('kind', 'text', (c) => c.check(sql`kind in ('void', 'refund')`))
      .addColumn('provider_refund_id', 'text')
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('admin_user_id', 'uuid', (c) => c.notNull())
      .addColumn('admin_ip', 'text')
      .addColumn('amount_cents', 'integer', (c) => c.notNull().check(sql`amount_cents > 0`))
      .addColumn('clicks_taken', 'integer')
      .addColumn('pass_taken', 'boolean')
      .addColumn('pot_cents', 'integer')
      .addColumn('house_cents', 'integer')
      .addColumn('loss_cents', 'integer')
      .addColumn('error', 'text')
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_until', 'timestamptz')
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('completed_at', 'timestamptz')
      .execute();
    await sql`create index refunds_unfinished on refunds (updated_at) where status in ('returning', 'returned')`.execute(
      db,
    );
    // A player's purchases and payouts, newest first (the admin's view).
    await sql`create index if not exists purchases_user_time on purchases (user_id, created_at desc, id desc)`.execute(
      db,
    );
    await sql`create index if not exists payouts_user_time on payouts (user_id, created_at desc, id desc)`.execute(
      db,
    );
    await sql`alter table ledger_transactions drop constraint ledger_transactions_kind_check`.execute(db);
    await sql`alter table ledger_transactions add constraint ledger_transactions_kind_check
      check (kind in ('purchase', 'round_won', 'payout', 'refund'))`.execute(db);
  },
  async down(db: Kysely<any>) {
    // The ledger is append-only: with refund movements posted, going down is refused here (the check
    // below fails) rather than losing them.
    await sql`alter table ledger_transactions drop constraint ledger_transactions_kind_check`.execute(db);
    await sql`alter table ledger_transactions add constraint ledger_transactions_kind_check
      check (kind in ('purchase', 'round_won', 'payout'))`.execute(db);
    await sql`drop index if exists payouts_user_time`.execute(db);
    await sql`drop index if exists purchases_user_time`.execute(db);
    await db.schema.dropTable('refunds').execute();
  },
};
