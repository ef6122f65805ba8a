// A new payout email waits here until it is confirmed from the link mailed to the account's email: the
// token's SHA-256 (never the token), its expiry, and the account's security epoch when it was asked (a
// security event since spends it). `payees` keeps only confirmed addresses (and those set before this
// table existed, by their owners). Frozen in time.
import { sql, type Kysely, type Migration } from 'kysely';

export const payoutEmailChangesMigration: Migration = {
  async up(db: Kysely<any>) {
    await db.schema
      .createTable('payout_email_changes')
      .addColumn('id', 'uuid', (c) => c.primaryKey())
      .addColumn('user_id', 'uuid', (c) => c.notNull())
      .addColumn('paypal_email', 'text', (c) => c.notNull())
      // Null until the confirm mail leaves and auth asks for its token (minted at send).
      .addColumn('token_hash', 'text', (c) => c.unique())
      .addColumn('security_epoch', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
      .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
      .addColumn('confirmed_at', 'timestamptz')
      .addColumn('cancelled_at', 'timestamptz')
      .execute();
    await sql`create index payout_email_changes_open on payout_email_changes (user_id, created_at)
      where confirmed_at is null and cancelled_at is null`.execute(db);
  },
  async down(db: Kysely<any>) {
    await db.schema.dropTable('payout_email_changes').execute();
  },
};
