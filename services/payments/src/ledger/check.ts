// Proves the ledger is sound: every movement sums to zero, no internal account was ever negative, and
// the ledger agrees with the purchases, refunds, clawbacks, payouts and wins it records. Runs after every
// test and, as `pnpm --filter @omc/payments run ledger:check`, against any database. Its queries are in
// check.repo.ts.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import {
  unbalancedMovements,
  emptyMovements,
  negativeAccounts,
  purchasesOffLedger,
  purchasesPostedWrong,
  refundsOffLedger,
  refundsPostedWrong,
  payoutsOffLedger,
  clawbacksOffLedger,
  clawbacksPostedWrong,
  payoutReturnsOffLedger,
  payoutReturnsWrongAmount,
  accountsPendingTwice,
  roundShortfalls,
  roundsCreditedWrong,
  driftedBalances,
  accountSums,
  ledgerCounts,
} from './check.repo.js';

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
  const unbalanced = await unbalancedMovements(db);
  for (const row of unbalanced) problems.push(`movement ${row.reference} sums to ${row.total}, not 0`);

  const empty = await emptyMovements(db);
  for (const row of empty) problems.push(`movement ${row.reference} has no entries`);

  // Running balance per internal account, in posting order: never below zero at any point.
  const negative = await negativeAccounts(db);
  for (const row of negative) problems.push(`account ${row.account_id} went negative (${row.lowest})`);
  return problems;
}

/** The ledger's purchases against the purchases table: posted once, at their price. */
async function purchaseProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  // Every succeeded purchase is posted exactly once, with its price; nothing else is posted as a purchase.
  const purchaseMismatch = await purchasesOffLedger(db);
  for (const row of purchaseMismatch) problems.push(`purchase ${row.id ?? '(unknown)'}: ${row.problem}`);

  const wrongPrice = await purchasesPostedWrong(db);
  for (const row of wrongPrice)
    problems.push(`purchase ${row.id} charged ${row.amount_cents} but posted ${row.cash_in}`);
  return problems;
}

/** The ledger's refunds against the refunds table: posted once, for what Braintree refunded. */
async function refundProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  // Every completed refund is posted once, giving back what Braintree refunded; nothing else is posted as a
  // refund, and only a purchase that succeeded is refunded.
  const refundMismatch = await refundsOffLedger(db);
  for (const row of refundMismatch) problems.push(`purchase ${row.id}: ${row.problem}`);
  // What Braintree refunded (the refund's amount, at most the price) is what the ledger gave back.
  const wrongRefund = await refundsPostedWrong(db);
  for (const row of wrongRefund)
    problems.push(
      `purchase ${row.id} refunded ${row.cash_out} in the ledger for ${row.refunded} at Braintree of its ${row.amount_cents}, or was never charged`,
    );
  return problems;
}

/**
 * The ledger's clawbacks against the clawbacks table: a completed clawback is posted once (what came back
 * and the house's loss, `clawback:` and `clawback-loss:`), giving Braintree the price it took back, with
 * the loss as recorded; nothing else is posted as a clawback.
 */
async function clawbackProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  for (const row of await clawbacksOffLedger(db)) problems.push(`purchase ${row.id}: ${row.problem}`);
  for (const row of await clawbacksPostedWrong(db))
    problems.push(
      `purchase ${row.id}: clawback of ${row.amount_cents} posted ${row.given} to Braintree and a loss of ${row.loss}`,
    );
  return problems;
}

/** The ledger's payouts and their returns against the payouts table, and one unfinished payout per account. */
async function payoutProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  const payoutMismatch = await payoutsOffLedger(db);
  for (const row of payoutMismatch) problems.push(`payout ${row.id ?? '(unknown)'}: ${row.problem}`);

  // A paid payout whose money PayPal gave back is returned once, for its amount, to the account it left;
  // nothing else is posted as a return.
  for (const row of await payoutReturnsOffLedger(db)) problems.push(`payout ${row.id}: ${row.problem}`);
  for (const row of await payoutReturnsWrongAmount(db))
    problems.push(`payout ${row.id}: the ledger returned another amount than was paid`);

  const pendingTwice = await accountsPendingTwice(db);
  for (const row of pendingTwice)
    problems.push(`account ${row.account_id} has more than one unfinished payout`);
  return problems;
}

/** The ledger's round wins against the wins recorded from the game. */
async function roundProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  // Reconciliation with the game: a round whose announced pot exceeded what the ledger's pot held.
  const shortfalls = await roundShortfalls(db);
  for (const row of shortfalls)
    problems.push(
      `round ${row.round} was won with a pot of ${row.pot_cents} but the ledger's pot held ${row.credited_cents}`,
    );
  const roundMismatch = await roundsCreditedWrong(db);
  // A round won by staff is credited to the house instead (wins.service.ts): either account counts.
  for (const row of roundMismatch)
    problems.push(`round ${row.round}: the winner's credit in the ledger differs from the win recorded`);
  return problems;
}

async function storedBalanceProblems(db: Kysely<Database>): Promise<string[]> {
  const problems: string[] = [];
  // Each account's stored balance (kept by a trigger, read by the profile and the payouts) is its sum.
  const drifted = await driftedBalances(db);
  for (const row of drifted)
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
    ...(await clawbackProblems(db)),
    ...(await payoutProblems(db)),
    ...(await roundProblems(db)),
  ];
  const balances = await accountSums(db);
  problems.push(...(await storedBalanceProblems(db)));
  const counts = await ledgerCounts(db);
  const total = balances.reduce((sum, row) => sum + Number(row.cents), 0);
  if (total !== 0) problems.push(`all accounts together sum to ${total}, not 0`);

  return {
    ok: problems.length === 0,
    problems,
    transactions: Number(counts[0]?.transactions ?? 0),
    entries: Number(counts[0]?.entries ?? 0),
    balances: Object.fromEntries(balances.map((row) => [row.account_id, Number(row.cents)])),
  };
}
