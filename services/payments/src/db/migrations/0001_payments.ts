import { sql, type Kysely, type Migration } from 'kysely';

type AnyDb = Kysely<any>;

async function createUsers(db: AnyDb): Promise<void> {
  // Users as auth announces them: the current role decides who is admin.
  await db.schema
    .createTable('users')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('username', 'text')
    .addColumn('email', 'text')
    .addColumn('role', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

async function createPayees(db: AnyDb): Promise<void> {
  // Where a user's payouts go. Kept apart from users: an email may be set before auth's event arrives.
  await db.schema
    .createTable('payees')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey())
    .addColumn('paypal_email', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

async function createLedger(db: AnyDb): Promise<void> {
  // The ledger: accounts, transactions, and their entries (signed integer cents, summing to zero).
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('external', 'internal')`))
    .addColumn('user_id', 'uuid')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('ledger_transactions')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('purchase', 'round_won', 'payout')`))
    // What the money movement is for ('purchase:<id>', 'round:<n>', 'payout:<id>'): one movement each.
    .addColumn('reference', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createTable('ledger_entries')
    .addColumn('id', 'bigserial', (c) => c.primaryKey())
    .addColumn('transaction_id', 'uuid', (c) => c.notNull().references('ledger_transactions.id'))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('amount_cents', 'bigint', (c) => c.notNull().check(sql`amount_cents <> 0`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('ledger_entries_account')
    .on('ledger_entries')
    .columns(['account_id', 'id'])
    .execute();
  await db.schema
    .createIndex('ledger_entries_transaction')
    .on('ledger_entries')
    .column('transaction_id')
    .execute();
}

async function makeLedgerAppendOnly(db: AnyDb): Promise<void> {
  // Append-only: corrections are new transactions, never edits.
  await sql`
      create function ledger_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'the ledger is append-only: % on % is not allowed', tg_op, tg_table_name;
      end $$`.execute(db);
  await sql`create trigger ledger_entries_append_only before update or delete on ledger_entries for each row execute function ledger_append_only()`.execute(
    db,
  );
  await sql`create trigger ledger_transactions_append_only before update or delete on ledger_transactions for each row execute function ledger_append_only()`.execute(
    db,
  );
}

async function createPurchases(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('purchases')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('idempotency_key', 'text', (c) => c.notNull().unique())
    .addColumn('nonce_hash', 'text', (c) => c.notNull())
    .addColumn('pack_id', 'text', (c) => c.notNull())
    .addColumn('amount_cents', 'integer', (c) => c.notNull().check(sql`amount_cents > 0`))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('pending', 'succeeded', 'declined', 'failed')`),
    )
    .addColumn('provider_transaction_id', 'text')
    .addColumn('error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_until', 'timestamptz')
    .addColumn('settlement_status', 'text')
    .addColumn('dispute_status', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
  await db.schema
    .createIndex('purchases_user_nonce')
    .on('purchases')
    .columns(['user_id', 'nonce_hash', 'created_at'])
    .execute();
  await sql`create index purchases_pending on purchases (created_at) where status = 'pending'`.execute(db);
  await sql`create unique index purchases_provider_transaction on purchases (provider_transaction_id) where provider_transaction_id is not null`.execute(
    db,
  );
}

async function createPayouts(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('payouts')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('user_id', 'uuid', (c) => c.notNull())
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('winnings', 'house')`))
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('amount_cents', 'bigint', (c) => c.notNull().check(sql`amount_cents > 0`))
    .addColumn('paypal_email', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('pending', 'completed', 'failed')`))
    .addColumn('provider_batch_id', 'text')
    .addColumn('error', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('lease_until', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('completed_at', 'timestamptz')
    .execute();
  // One unfinished payout per account at a time: concurrent collects cannot pay twice.
  await sql`create unique index payouts_one_pending on payouts (account_id) where status = 'pending'`.execute(
    db,
  );
}

async function createRoundWins(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('round_wins')
    .addColumn('round', 'bigint', (c) => c.primaryKey())
    .addColumn('winner_user_id', 'uuid', (c) => c.notNull())
    .addColumn('pot_cents', 'bigint', (c) => c.notNull())
    .addColumn('credited_cents', 'bigint', (c) => c.notNull())
    .addColumn('event_id', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

async function createWebhookEvents(db: AnyDb): Promise<void> {
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('subject_id', 'text')
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute();
}

export const paymentsMigration: Migration = {
  async up(db: AnyDb) {
    await createUsers(db);
    await createPayees(db);
    await createLedger(db);
    await makeLedgerAppendOnly(db);
    await createPurchases(db);
    await createPayouts(db);
    await createRoundWins(db);
    await createWebhookEvents(db);
  },
  async down(db: AnyDb) {
    // Dropping a table drops its triggers; the function goes last. Referencing tables before referenced.
    for (const table of [
      'webhook_events',
      'round_wins',
      'payouts',
      'purchases',
      'ledger_entries',
      'ledger_transactions',
      'accounts',
      'payees',
      'users',
    ])
      await db.schema.dropTable(table).execute();
    await sql`drop function ledger_append_only()`.execute(db);
  },
};
