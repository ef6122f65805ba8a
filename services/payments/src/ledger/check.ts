// Proves the ledger is sound: every movement sums to zero, no internal account was ever negative, and
// the ledger agrees with the purchases, payouts and wins it records. Runs after every test and, as
// `pnpm --filter @omc/payments run ledger:check`, against any database.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

export interface LedgerReport {
  ok: boolean;
  problems: string[];
  transactions: number;
  entries: number;
  balances: Record<string, number>;
}

/** Every movement sums to zero and has entries; no internal account ever went negative. */
async function movementProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  const unbalanced = await sql<{ transaction_id: string; reference: string; total: number }>`
    select e.transaction_id, t.reference, sum(e.amount_cents)::bigint as total
    from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
    group by e.transaction_id, t.reference having sum(e.amount_cents) <> 0`.execute(db);
  for (const row of unbalanced.rows) problems.push(`movement ${row.reference} sums to ${row.total}, not 0`);

  const empty = await sql<{ reference: string }>`
    select t.reference from ledger_transactions t
    where not exists (select 1 from ledger_entries e where e.transaction_id = t.id)`.execute(db);
  for (const row of empty.rows) problems.push(`movement ${row.reference} has no entries`);

  // Running balance per internal account, in posting order: never below zero at any point.
  const negative = await sql<{ account_id: string; lowest: number }>`
    select account_id, min(running)::bigint as lowest from (
      select account_id, sum(amount_cents) over (partition by account_id order by id) as running
      from ledger_entries where account_id not like 'external:%'
    ) r group by account_id having min(running) < 0`.execute(db);
  for (const row of negative.rows) problems.push(`account ${row.account_id} went negative (${row.lowest})`);
  return problems;
}

/** The ledger's purchases against the purchases table: posted once, at their price. */
async function purchaseProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  // Every succeeded purchase is posted exactly once, with its price; nothing else is posted as a purchase.
  const purchaseMismatch = await sql<{ id: string; problem: string }>`
    select p.id, case when t.id is null then 'succeeded but not in the ledger' else 'in the ledger but not succeeded' end as problem
    from purchases p full join ledger_transactions t on t.reference = 'purchase:' || p.id::text
    where (p.status = 'succeeded' and t.id is null)
       or (t.kind = 'purchase' and (p.id is null or p.status <> 'succeeded'))`.execute(db);
  for (const row of purchaseMismatch.rows) problems.push(`purchase ${row.id ?? '(unknown)'}: ${row.problem}`);

  const wrongPrice = await sql<{ id: string; amount_cents: number; cash_in: number }>`
    select p.id, p.amount_cents, -sum(e.amount_cents)::bigint as cash_in
    from purchases p
    join ledger_transactions t on t.reference = 'purchase:' || p.id::text
    join ledger_entries e on e.transaction_id = t.id and e.account_id = 'external:braintree'
    group by p.id, p.amount_cents having -sum(e.amount_cents) <> p.amount_cents`.execute(db);
  for (const row of wrongPrice.rows)
    problems.push(`purchase ${row.id} charged ${row.amount_cents} but posted ${row.cash_in}`);
  return problems;
}

/** The ledger's refunds against the refunds table: posted once, for what Braintree refunded. */
async function refundProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  // Every completed refund is posted once, giving back what Braintree refunded; nothing else is posted as a
  // refund, and only a purchase that succeeded is refunded.
  const refundMismatch = await sql<{ id: string; problem: string }>`
    select coalesce(r.purchase_id::text, t.reference) as id,
      case when t.id is null then 'refund completed but not in the ledger' else 'refund in the ledger but not completed' end as problem
    from refunds r full join ledger_transactions t on t.reference = 'refund:' || r.purchase_id::text
    where (r.status = 'completed' and t.id is null)
       or (t.kind = 'refund' and (r.purchase_id is null or r.status <> 'completed'))`.execute(db);
  for (const row of refundMismatch.rows) problems.push(`purchase ${row.id}: ${row.problem}`);
  // What Braintree refunded (the refund's amount, at most the price) is what the ledger gave back.
  const wrongRefund = await sql<{ id: string; amount_cents: number; refunded: number; cash_out: number }>`
    select p.id, p.amount_cents, r.amount_cents as refunded, coalesce(sum(e.amount_cents), 0)::bigint as cash_out
    from refunds r join purchases p on p.id = r.purchase_id
    join ledger_transactions t on t.reference = 'refund:' || r.purchase_id::text
    left join ledger_entries e on e.transaction_id = t.id and e.account_id = 'external:braintree'
    group by p.id, p.amount_cents, p.status, r.amount_cents
    having coalesce(sum(e.amount_cents), 0) <> r.amount_cents or r.amount_cents > p.amount_cents
        or p.status <> 'succeeded'`.execute(db);
  for (const row of wrongRefund.rows)
    problems.push(
      `purchase ${row.id} refunded ${row.cash_out} in the ledger for ${row.refunded} at Braintree of its ${row.amount_cents}, or was never charged`,
    );
  return problems;
}

/** The ledger's payouts against the payouts table, and at most one unfinished payout per account. */
async function payoutProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  const payoutMismatch = await sql<{ id: string; problem: string }>`
    select p.id, case when t.id is null then 'completed but not in the ledger' else 'in the ledger but not completed' end as problem
    from payouts p full join ledger_transactions t on t.reference = 'payout:' || p.id::text
    where (p.status = 'completed' and t.id is null)
       or (t.kind = 'payout' and (p.id is null or p.status <> 'completed'))`.execute(db);
  for (const row of payoutMismatch.rows) problems.push(`payout ${row.id ?? '(unknown)'}: ${row.problem}`);

  const pendingTwice = await sql<{ account_id: string }>`
    select account_id from payouts where status = 'pending' group by account_id having count(*) > 1`.execute(
    db,
  );
  for (const row of pendingTwice.rows)
    problems.push(`account ${row.account_id} has more than one unfinished payout`);
  return problems;
}

/** The ledger's round wins against the wins recorded from the game. */
async function roundProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  // Reconciliation with the game: a round whose announced pot exceeded what the ledger's pot held.
  const shortfalls = await sql<{ round: number; pot_cents: number; credited_cents: number }>`
    select round, pot_cents, credited_cents from round_wins where credited_cents <> pot_cents order by round`.execute(
    db,
  );
  for (const row of shortfalls.rows)
    problems.push(
      `round ${row.round} was won with a pot of ${row.pot_cents} but the ledger's pot held ${row.credited_cents}`,
    );
  const roundMismatch = await sql<{ round: number }>`
    select w.round from round_wins w
    left join ledger_transactions t on t.reference = 'round:' || w.round::text
    left join ledger_entries e on e.transaction_id = t.id
      and e.account_id in ('winnings:' || w.winner_user_id::text, 'house')
    group by w.round, w.credited_cents having coalesce(sum(e.amount_cents), 0) <> w.credited_cents`.execute(
    db,
  );
  // A round won by staff is credited to the house instead (wins.service.ts): either account counts.
  for (const row of roundMismatch.rows)
    problems.push(`round ${row.round}: the winner's credit in the ledger differs from the win recorded`);
  return problems;
}

async function storedBalanceProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  // Each account's stored balance (kept by a trigger, read by the profile and the payouts) is its sum.
  const drifted = await sql<{ id: string; stored: number; cents: number }>`
    select a.id, a.balance_cents as stored, coalesce(sum(e.amount_cents), 0)::bigint as cents
    from accounts a left join ledger_entries e on e.account_id = a.id
    group by a.id, a.balance_cents having a.balance_cents <> coalesce(sum(e.amount_cents), 0)`.execute(db);
  for (const row of drifted.rows)
    problems.push(
      `account ${row.id} stores a balance of ${row.stored} but its ledger entries sum to ${row.cents}`,
    );
  return problems;
}

export async function checkLedger(db: Kysely<Database>): Promise<LedgerReport> {
  const problems: string[] = [
    ...(await movementProblems(db)),
    ...(await purchaseProblems(db)),
    ...(await refundProblems(db)),
    ...(await payoutProblems(db)),
    ...(await roundProblems(db)),
  ];
  const balances = await sql<{ account_id: string; cents: number }>`
    select account_id, sum(amount_cents)::bigint as cents from ledger_entries group by account_id order by account_id`.execute(
    db,
  );
  problems.push(...(await storedBalanceProblems(db)));
  const counts = await sql<{ transactions: number; entries: number }>`
    select (select count(*) from ledger_transactions)::bigint as transactions, (select count(*) from ledger_entries)::bigint as entries`.execute(
    db,
  );
  const total = balances.rows.reduce((sum, row) => sum + Number(row.cents), 0);
  if (total !== 0) problems.push(`all accounts together sum to ${total}, not 0`);

  return {
    ok: problems.length === 0,
    problems,
    transactions: Number(counts.rows[0]?.transactions ?? 0),
    entries: Number(counts.rows[0]?.entries ?? 0),
    balances: Object.fromEntries(balances.rows.map((row) => [row.account_id, Number(row.cents)])),
  };
}
