// Each account keeps its balance where the ledger is written: a trigger adds every entry to its
// account's balance in the same transaction, so reading a balance (the profile, a payout, a win) is one
// row, not a sum over the account's history. The ledger stays the truth: the ledger check compares the
// two. Frozen in time: Kysely<any>, no application imports.
import { sql, type Kysely, type Migration } from 'kysely';

export const accountBalancesMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .alterTable('accounts')
      .addColumn('balance_cents', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await sql`
      create function ledger_entry_to_balance() returns trigger language plpgsql as $$
      begin
        update accounts set balance_cents = balance_cents + new.amount_cents where id = new.account_id;
        return null;
      end $$`.execute(db);
    await sql`create trigger ledger_entries_balance after insert on ledger_entries for each row execute function ledger_entry_to_balance()`.execute(
      db,
    );
    // The balances so far, from the ledger; the lock keeps an entry from slipping in between.
    await sql`lock table ledger_entries in share mode`.execute(db);
    await sql`
      update accounts a set balance_cents = s.cents
      from (select account_id, sum(amount_cents)::bigint as cents from ledger_entries group by account_id) s
      where s.account_id = a.id`.execute(db);
  },
  async down(db: Kysely<any>) {
    await sql`drop trigger ledger_entries_balance on ledger_entries`.execute(db);
    await sql`drop function ledger_entry_to_balance()`.execute(db);
    await db.schema.alterTable('accounts').dropColumn('balance_cents').execute();
  },
};
