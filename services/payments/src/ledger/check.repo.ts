// The ledger check's queries (src/ledger/check.ts reads them as problems): each returns the rows that
// break one rule of a sound ledger, none when the rule holds, or the totals the report gives.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** Movements whose entries do not sum to zero. */
export async function unbalancedMovements(db: Kysely<Database>) {
  return (
    await sql<{ transaction_id: string; reference: string; total: number }>`
    select e.transaction_id, t.reference, sum(e.amount_cents)::bigint as total
    from ledger_entries e join ledger_transactions t on t.id = e.transaction_id
    group by e.transaction_id, t.reference having sum(e.amount_cents) <> 0`.execute(db)
  ).rows;
}

/** Movements without entries. */
export async function emptyMovements(db: Kysely<Database>) {
  return (
    await sql<{ reference: string }>`
    select t.reference from ledger_transactions t
    where not exists (select 1 from ledger_entries e where e.transaction_id = t.id)`.execute(db)
  ).rows;
}

/** Internal accounts whose running balance, in posting order, went below zero. */
export async function negativeAccounts(db: Kysely<Database>) {
  return (
    await sql<{ account_id: string; lowest: number }>`
    select account_id, min(running)::bigint as lowest from (
      select account_id, sum(amount_cents) over (partition by account_id order by id) as running
      from ledger_entries where account_id not like 'external:%'
    ) r group by account_id having min(running) < 0`.execute(db)
  ).rows;
}

/** Succeeded purchases not posted, and purchase postings without a succeeded purchase. */
export async function purchasesOffLedger(db: Kysely<Database>) {
  return (
    await sql<{ id: string; problem: string }>`
    select p.id, case when t.id is null then 'succeeded but not in the ledger' else 'in the ledger but not succeeded' end as problem
    from purchases p full join ledger_transactions t on t.reference = 'purchase:' || p.id::text
    where (p.status = 'succeeded' and t.id is null)
       or (t.kind = 'purchase' and (p.id is null or p.status <> 'succeeded'))`.execute(db)
  ).rows;
}

/** Purchases whose posting took in other than their price. */
export async function purchasesPostedWrong(db: Kysely<Database>) {
  return (
    await sql<{ id: string; amount_cents: number; cash_in: number }>`
    select p.id, p.amount_cents, -sum(e.amount_cents)::bigint as cash_in
    from purchases p
    join ledger_transactions t on t.reference = 'purchase:' || p.id::text
    join ledger_entries e on e.transaction_id = t.id and e.account_id = 'external:braintree'
    group by p.id, p.amount_cents having -sum(e.amount_cents) <> p.amount_cents`.execute(db)
  ).rows;
}

/** Completed refunds not posted, and refund postings without a completed refund. */
export async function refundsOffLedger(db: Kysely<Database>) {
  return (
    await sql<{ id: string; problem: string }>`
    select coalesce(r.purchase_id::text, t.reference) as id,
      case when t.id is null then 'refund completed but not in the ledger' else 'refund in the ledger but not completed' end as problem
    from refunds r full join ledger_transactions t on t.reference = 'refund:' || r.purchase_id::text
    where (r.status = 'completed' and t.id is null)
       or (t.kind = 'refund' and (r.purchase_id is null or r.status <> 'completed'))`.execute(db)
  ).rows;
}

/** Refunds whose posting gave back other than Braintree refunded, more than the price, or for a purchase that never succeeded. */
export async function refundsPostedWrong(db: Kysely<Database>) {
  return (
    await sql<{ id: string; amount_cents: number; refunded: number; cash_out: number }>`
    select p.id, p.amount_cents, r.amount_cents as refunded, coalesce(sum(e.amount_cents), 0)::bigint as cash_out
    from refunds r join purchases p on p.id = r.purchase_id
    join ledger_transactions t on t.reference = 'refund:' || r.purchase_id::text
    left join ledger_entries e on e.transaction_id = t.id and e.account_id = 'external:braintree'
    group by p.id, p.amount_cents, p.status, r.amount_cents
    having coalesce(sum(e.amount_cents), 0) <> r.amount_cents or r.amount_cents > p.amount_cents
        or p.status <> 'succeeded'`.execute(db)
  ).rows;
}

/** Completed payouts not posted, and payout postings without a completed payout. */
export async function payoutsOffLedger(db: Kysely<Database>) {
  return (
    await sql<{ id: string; problem: string }>`
    select p.id, case when t.id is null then 'completed but not in the ledger' else 'in the ledger but not completed' end as problem
    from payouts p full join ledger_transactions t on t.reference = 'payout:' || p.id::text
    where (p.status = 'completed' and t.id is null)
       or (t.kind = 'payout' and (p.id is null or p.status <> 'completed'))`.execute(db)
  ).rows;
}

/** Clawback postings without a completed clawback, and completed clawbacks given back wrong. */
export async function clawbacksOffLedger(db: Kysely<Database>) {
  return (
    await sql<{ id: string; problem: string }>`
    select coalesce(c.purchase_id::text, t.reference) as id,
      case when c.purchase_id is null or c.status <> 'completed' then 'clawback in the ledger but not completed'
        else 'clawback completed but the ledger gave back ' || coalesce(sum(e.amount_cents), 0)::text || ' of ' || c.amount_cents::text end as problem
    from ledger_transactions t
    left join clawbacks c on t.reference in ('clawback:' || c.purchase_id::text, 'clawback-loss:' || c.purchase_id::text)
    left join ledger_entries e on e.transaction_id = t.id and e.account_id = 'external:braintree'
    where t.kind = 'clawback'
    group by c.purchase_id, c.status, c.amount_cents, t.reference
    having c.purchase_id is null or c.status <> 'completed'`.execute(db)
  ).rows;
}

/** Completed clawbacks whose postings give Braintree another amount, or record another loss, than stored. */
export async function clawbacksPostedWrong(db: Kysely<Database>) {
  return (
    await sql<{ id: string; amount_cents: number; given: number; loss: number }>`
    select c.purchase_id as id, c.amount_cents,
      coalesce(sum(e.amount_cents) filter (where e.account_id = 'external:braintree'), 0)::bigint as given,
      coalesce(-sum(e.amount_cents) filter (where t.reference like 'clawback-loss:%' and e.account_id <> 'external:braintree'), 0)::bigint as loss
    from clawbacks c
    left join ledger_transactions t on t.reference in ('clawback:' || c.purchase_id::text, 'clawback-loss:' || c.purchase_id::text)
    left join ledger_entries e on e.transaction_id = t.id
    where c.status = 'completed'
    group by c.purchase_id, c.amount_cents, c.loss_cents
    having coalesce(sum(e.amount_cents) filter (where e.account_id = 'external:braintree'), 0) <> c.amount_cents
      or coalesce(-sum(e.amount_cents) filter (where t.reference like 'clawback-loss:%' and e.account_id <> 'external:braintree'), 0) <> c.loss_cents`.execute(
      db,
    )
  ).rows;
}

/** Payouts PayPal gave back and not returned in the ledger, and returns without such a payout. */
export async function payoutReturnsOffLedger(db: Kysely<Database>) {
  return (
    await sql<{ id: string; problem: string }>`
    select coalesce(p.id::text, t.reference) as id,
      case when t.id is null then 'returned but not in the ledger' else 'return in the ledger but not returned' end as problem
    from payouts p full join ledger_transactions t on t.reference = 'payout-return:' || p.id::text
    where (p.returned_at is not null and t.id is null)
       or (t.kind = 'payout_return' and (p.id is null or p.returned_at is null or p.status <> 'completed'))`.execute(
      db,
    )
  ).rows;
}

/** Returned payouts whose return gave the account another amount than was paid out. */
export async function payoutReturnsWrongAmount(db: Kysely<Database>) {
  return (
    await sql<{ id: string }>`
    select p.id from payouts p
    join ledger_transactions t on t.reference = 'payout-return:' || p.id::text
    left join ledger_entries e on e.transaction_id = t.id and e.account_id = p.account_id
    group by p.id, p.amount_cents having coalesce(sum(e.amount_cents), 0) <> p.amount_cents`.execute(db)
  ).rows;
}

/** Accounts with more than one unfinished payout. */
export async function accountsPendingTwice(db: Kysely<Database>) {
  return (
    await sql<{ account_id: string }>`
    select account_id from payouts where status = 'pending' group by account_id having count(*) > 1`.execute(
      db,
    )
  ).rows;
}

/** Rounds won with a pot larger than the ledger's pot held. */
export async function roundShortfalls(db: Kysely<Database>) {
  return (
    await sql<{ round: number; pot_cents: number; credited_cents: number }>`
    select round, pot_cents, credited_cents from round_wins where credited_cents <> pot_cents order by round`.execute(
      db,
    )
  ).rows;
}

/** Rounds whose winner's credit in the ledger differs from the win recorded. */
export async function roundsCreditedWrong(db: Kysely<Database>) {
  return (
    await sql<{ round: number }>`
    select w.round from round_wins w
    left join ledger_transactions t on t.reference = 'round:' || w.round::text
    left join ledger_entries e on e.transaction_id = t.id
      and e.account_id in ('winnings:' || w.winner_user_id::text, 'house')
    group by w.round, w.credited_cents having coalesce(sum(e.amount_cents), 0) <> w.credited_cents`.execute(
      db,
    )
  ).rows;
}

/** Accounts whose stored balance differs from the sum of their entries. */
export async function driftedBalances(db: Kysely<Database>) {
  return (
    await sql<{ id: string; stored: number; cents: number }>`
    select a.id, a.balance_cents as stored, coalesce(sum(e.amount_cents), 0)::bigint as cents
    from accounts a left join ledger_entries e on e.account_id = a.id
    group by a.id, a.balance_cents having a.balance_cents <> coalesce(sum(e.amount_cents), 0)`.execute(db)
  ).rows;
}

/** Each account's sum of entries. */
export async function accountSums(db: Kysely<Database>) {
  return (
    await sql<{ account_id: string; cents: number }>`
    select account_id, sum(amount_cents)::bigint as cents from ledger_entries group by account_id order by account_id`.execute(
      db,
    )
  ).rows;
}

/** How many movements and entries the ledger holds. */
export async function ledgerCounts(db: Kysely<Database>) {
  return (
    await sql<{ transactions: number; entries: number }>`
    select (select count(*) from ledger_transactions)::bigint as transactions, (select count(*) from ledger_entries)::bigint as entries`.execute(
      db,
    )
  ).rows;
}
