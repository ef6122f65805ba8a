// PayPal's status of each paid payout's item, read back until final, and the return of a payout's money
// when PayPal gives it back (returned, failed, refunded, reversed): the ledger learns a sixth kind of
// movement, `payout_return`. Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const payoutItemsMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('payouts')
      .addColumn('item_status', 'text')
      .addColumn('item_checked_at', 'timestamptz')
      .addColumn('returned_at', 'timestamptz')
      .execute();
    // Paid payouts whose item is not final yet, the least recently read first.
    await sql`create index payouts_items_unfinished on payouts (item_checked_at nulls first, completed_at)
      where status = 'completed' and returned_at is null and item_status is distinct from 'SUCCESS'`.execute(
      db,
    );
    await sql`alter table ledger_transactions drop constraint ledger_transactions_kind_check`.execute(db);
    await sql`alter table ledger_transactions add constraint ledger_transactions_kind_check
      check (kind in ('purchase', 'round_won', 'payout', 'refund', 'clawback', 'payout_return'))`.execute(db);
  },
  async down(db: Kysely<any>) {
    // The ledger is append-only: with payout returns posted, going down is refused here (the check below
    // fails) rather than losing them.
    await sql`alter table ledger_transactions drop constraint ledger_transactions_kind_check`.execute(db);
    await sql`alter table ledger_transactions add constraint ledger_transactions_kind_check
      check (kind in ('purchase', 'round_won', 'payout', 'refund', 'clawback'))`.execute(db);
    await sql`drop index if exists payouts_items_unfinished`.execute(db);
    await db.schema
      .alterTable('payouts')
      .dropColumn('item_status')
      .dropColumn('item_checked_at')
      .dropColumn('returned_at')
      .execute();
  },
};
