// The promises checked after every scenario, against what clients were told and what the public API
// and (read-only) the services' own databases say now.
import {
  checkout,
  clickAsPlayer,
  gameProfile,
  paymentsProfile,
  winners,
  type ClickRecord,
  type CollectRecord,
  type PurchaseRecord,
} from './actions.js';
import { figures, invariant, suite } from './context.js';
import { query, tableExists } from './db.js';
import { waitFor, type Player } from './http.js';
import type { Cast } from './load.js';

export interface Records {
  clicks: ClickRecord[];
  purchases: PurchaseRecord[];
  collects: CollectRecord[];
}

export interface CheckOptions {
  scenario: string;
  /** Clicks a client was told were accepted may be lost (Redis crash): count them instead of failing. */
  clickLossAllowed?: boolean;
}

const ambiguous = (status: number) => status === 0 || status >= 500;

/** The parts not ready now, with what their readiness says (empty when every part is ready). */
export async function notReady(): Promise<string[]> {
  const down: string[] = [];
  for (const [name, url] of Object.entries(suite().urls)) {
    const answer = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(2000) }).then(
      async (r) => (r.ok ? undefined : `${name}: ${r.status} ${(await r.text()).slice(0, 200)}`),
      (e: Error) => `${name}: ${e.message}`,
    );
    if (answer) down.push(answer);
  }
  return down;
}

export async function allReady(): Promise<boolean> {
  return (await notReady()).length === 0;
}

/** Clicks: each accepted click one ordinal in one round, one win per round at the target. Returns clicks lost. */
export function checkClicks(records: ClickRecord[], options: CheckOptions): number {
  const target = Number(suite().env.ROUND_TARGET);
  const accepted = records.filter((c) => c.status === 200);
  const seen = new Map<string, number>();
  for (const c of accepted) {
    const key = `${c.round}:${c.globalClicks}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  const duplicates = [...seen.values()].reduce((n, count) => n + count - 1, 0);
  if (!options.clickLossAllowed) {
    invariant(
      `${options.scenario}: no click ordinal given twice in a round`,
      duplicates === 0,
      `${duplicates} duplicates`,
    );
  }
  invariant(
    `${options.scenario}: every accepted click has a round and an ordinal in 1..target`,
    accepted.every((c) => Number.isInteger(c.round) && c.globalClicks! >= 1 && c.globalClicks! <= target),
  );
  const wins = accepted.filter((c) => c.won);
  invariant(
    `${options.scenario}: each winning click is the round's target click`,
    wins.every((c) => c.globalClicks === target),
    wins.map((w) => w.globalClicks),
  );
  const winsPerRound = new Map<number, number>();
  for (const w of wins) winsPerRound.set(w.round!, (winsPerRound.get(w.round!) ?? 0) + 1);
  invariant(
    `${options.scenario}: at most one winning click per round`,
    [...winsPerRound.values()].every((n) => n === 1),
    Object.fromEntries(winsPerRound),
  );
  // Every round that a later click proves closed was won by exactly one click (ours, unless its answer was lost).
  const rounds = [...new Set(accepted.map((c) => c.round!))].sort((a, b) => a - b);
  const lostAnswers = records.filter((c) => ambiguous(c.status)).length;
  const closed = rounds
    .slice(0, -1)
    .filter((r) => accepted.some((c) => c.round === r && c.globalClicks === target) || !winsPerRound.has(r));
  // A closing click whose win was still being written when its bound (WIN_CONFIRM_TIMEOUT_MS) ran out is
  // answered as an accepted click without `won` (the player learns of the win from the round-won event):
  // its round was closed by that click, not lost.
  const toldLater = closed.filter(
    (r) => !winsPerRound.has(r) && accepted.some((c) => c.round === r && c.globalClicks === target),
  );
  const unwon = closed.filter((r) => !winsPerRound.has(r) && !toldLater.includes(r));
  invariant(
    `${options.scenario}: every closed round has its winning click (or lost its answer)`,
    unwon.length <= lostAnswers,
    { unwon, toldLater, lostAnswers },
  );
  return duplicates;
}

/** The counter equals the accepted clicks of the current round, probed with one more click now. */
export async function checkCounter(
  closer: Player,
  records: ClickRecord[],
  options: CheckOptions,
): Promise<number> {
  // Pressed as the web app does: a 503 (the system still catching up) is pressed again after Retry-After.
  const probe = await clickAsPlayer(closer, records);
  if (
    !invariant(`${options.scenario}: a click is accepted after recovery`, probe.status === 200, probe.status)
  )
    return 0;
  const before = records.filter((c) => c !== probe && c.status === 200 && c.round === probe.round).length;
  const unknown = records.filter((c) => ambiguous(c.status)).length;
  const counted = probe.globalClicks! - 1;
  const lost = Math.max(0, before - counted);
  if (!options.clickLossAllowed) {
    invariant(
      `${options.scenario}: the counter equals the round's accepted clicks`,
      counted >= before && counted <= before + unknown,
      { counted, accepted: before, unanswered: unknown },
    );
  } else {
    invariant(`${options.scenario}: the counter holds no click nobody made`, counted <= before + unknown, {
      counted,
      accepted: before,
      unanswered: unknown,
    });
  }
  return lost;
}

/** One winner per closed round in the game's own tables and in the public list; pots add up. */
export async function checkRounds(options: CheckOptions): Promise<void> {
  const target = Number(suite().env.ROUND_TARGET);
  const closedWithoutWinner = await query(
    'game',
    `select r.round from rounds r left join winners w on w.round = r.round where r.closed_at is not null and w.round is null`,
  );
  invariant(
    `${options.scenario}: every closed round has a winner row`,
    closedWithoutWinner.length === 0,
    closedWithoutWinner,
  );
  const winnersOfOpenRounds = await query(
    'game',
    `select w.round from winners w join rounds r on r.round = w.round where r.closed_at is null`,
  );
  invariant(
    `${options.scenario}: no open round has a winner`,
    winnersOfOpenRounds.length === 0,
    winnersOfOpenRounds,
  );
  const wrongCount = await query('game', `select round, clicks from winners where clicks <> $1`, [target]);
  invariant(`${options.scenario}: every win came at the target click`, wrongCount.length === 0, wrongCount);
  // The round's pot is the pot shares of that round's purchases (the first design: reconciliation).
  const mismatched = await query(
    'game',
    `select w.round, w.pot_cents, coalesce(sum(p.pot_share_cents), 0) as shares
       from winners w left join purchases p on p.round = w.round
      group by w.round, w.pot_cents having w.pot_cents <> coalesce(sum(p.pot_share_cents), 0)`,
  );
  invariant(
    `${options.scenario}: each round's pot equals its purchases' pot shares`,
    mismatched.length === 0,
    mismatched,
  );
  const listed = await winners();
  const rounds = listed.map((w) => w.round).filter((r): r is number => r !== undefined);
  invariant(
    `${options.scenario}: the public winners list has each round once`,
    new Set(rounds).size === rounds.length,
    rounds,
  );
}

/** No balance below zero, in any player's view or in the game's tables. */
export async function checkBalances(cast: Cast, options: CheckOptions): Promise<void> {
  const negative = await query('game', `select id from users where granted_clicks < 0`);
  invariant(`${options.scenario}: no granted balance below zero`, negative.length === 0, negative);
  const overspent = await query(
    'game',
    `select user_id, round from user_rounds where purchased_spent > purchased_clicks or purchased_clicks < 0`,
  );
  invariant(`${options.scenario}: no purchased balance below zero`, overspent.length === 0, overspent);
  for (const player of [cast.closer, ...cast.players]) {
    const game = await gameProfile(player);
    invariant(
      `${options.scenario}: ${player.username}'s clicks are not negative`,
      game !== undefined && game.freeClicks >= 0 && game.purchasedClicks >= 0,
      game,
    );
    const money = await paymentsProfile(player);
    invariant(
      `${options.scenario}: ${player.username}'s winnings are not negative`,
      money !== undefined && money.potEarned >= 0,
      money,
    );
  }
}

/** Every outbox drains: each event a service accepted is published. */
export async function checkOutboxes(options: CheckOptions): Promise<void> {
  for (const service of Object.keys(suite().databaseUrls)) {
    if (!(await tableExists(service, 'outbox'))) continue;
    const drained = await waitFor(
      `${service}'s outbox to drain`,
      async () =>
        Number(
          (await query(service, `select count(*)::int as n from outbox where published_at is null`))[0].n,
        ) === 0,
      30_000,
      500,
    ).then(
      () => true,
      () => false,
    );
    invariant(`${options.scenario}: ${service}'s outbox drains`, drained);
  }
}

/**
 * Purchases: a retry of every checkout with its key gives the same answer and charges nothing more;
 * each successful purchase is credited to the game exactly once.
 */
export async function checkPurchases(
  cast: Cast,
  purchases: PurchaseRecord[],
  options: CheckOptions,
): Promise<void> {
  const byUser = new Map([cast.closer, ...cast.players].map((p) => [p.username, p]));
  // Every purchase whose answer was lost or delayed, and a sample of the ones that succeeded.
  const successes = purchases.filter((p) => p.success);
  const sample = new Set(
    successes.filter((_, i) => i % Math.max(1, Math.floor(successes.length / 10)) === 0),
  );
  for (const p of purchases) {
    if (p.success && !sample.has(p)) continue;
    const player = byUser.get(p.user);
    if (!player || (p.status !== 200 && p.status !== 409 && !ambiguous(p.status))) continue;
    // A purchase still in flight answers 409 until its provider call is settled: ask again until it is.
    let retry = await checkout(player, p.amount, p.key);
    for (let i = 0; i < 60 && (retry.status === 409 || ambiguous(retry.status)); i++) {
      await new Promise((r) => setTimeout(r, 500));
      retry = await checkout(player, p.amount, p.key);
    }
    if (p.success) {
      invariant(
        `${options.scenario}: a retried checkout returns the same transaction`,
        retry.status === 200 && retry.transactionId === p.transactionId,
        { first: p, retry },
      );
    } else if (ambiguous(p.status) || p.status === 409) {
      // The client never heard: now it hears one definite answer.
      invariant(
        `${options.scenario}: an unanswered checkout has a definite answer after recovery`,
        retry.status === 200,
        retry,
      );
      if (retry.success) {
        p.success = true;
        p.transactionId = retry.transactionId;
      }
    }
  }
}

export async function checkCollects(collects: CollectRecord[], options: CheckOptions): Promise<void> {
  const ids = collects.filter((c) => c.transactionId).map((c) => c.transactionId!);
  invariant(
    `${options.scenario}: every payout has its own transaction`,
    new Set(ids).size === ids.length,
    ids.length,
  );
  // The cast verified their addresses from the mail before playing: none is refused for that.
  const unverified = collects.filter((c) => c.code === 'EMAIL_NOT_VERIFIED');
  invariant(
    `${options.scenario}: no collect by a verified player is refused as unverified`,
    unverified.length === 0,
    unverified.slice(0, 3),
  );
}

/** All of the above, in order. */
export async function checkAll(
  cast: Cast,
  records: Records,
  options: CheckOptions,
): Promise<{ clicksLost: number }> {
  const duplicates = checkClicks(records.clicks, options);
  const lost = await checkCounter(cast.closer, records.clicks, options);
  await checkPurchases(cast, records.purchases, options);
  await checkOutboxes(options);
  await checkRounds(options);
  await checkBalances(cast, options);
  await checkCollects(records.collects, options);
  await checkMoney(records.purchases, records.collects, options);
  return { clicksLost: Math.max(duplicates, lost) };
}

/** The emulator's own records (what the provider charged and paid), read through its test controls. */
export async function providerRecords(): Promise<{
  charges: { id: string; orderId: string; amountCents: number; charged: boolean }[];
  payouts: { senderBatchId: string; amountCents: number; receiver: string; transactionStatus?: string }[];
}> {
  const url = suite().urls.emulators;
  const charges = (
    (await (await fetch(`${url}/__emulator/braintree/transactions`)).json()) as { transactions: any[] }
  ).transactions;
  const payouts = ((await (await fetch(`${url}/__emulator/paypal/payouts`)).json()) as { payouts: any[] })
    .payouts;
  return { charges, payouts };
}

/**
 * docs/payments.md, "Unfinished money operations": a round won is credited within
 * EVENT_RECONCILE_INTERVAL_MS + GAME_TIMEOUT_MS + 3 s of payments and the game both being up (15 s with
 * the defaults this suite runs). The checks run once every part is ready again.
 */
export const WIN_CREDIT_BOUND_MS = 10_000 + 2000 + 3000;
/** A refund's bound with this suite's BRAINTREE_TIMEOUT_MS (3 s): its lease, then the next 30 s pass. */
const REFUND_BOUND_SECONDS = 3 * 3 + 2 + 5 + 30;

/**
 * Money: the ledger balances and no internal account ever went below zero; every succeeded purchase is
 * charged once at the provider, posted once, and credited once to the game; every completed payout was
 * paid once; every round won was credited once to its winner.
 */
export async function checkMoney(
  purchases: PurchaseRecord[],
  collects: CollectRecord[],
  options: CheckOptions,
): Promise<void> {
  const s = options.scenario;
  const unbalanced = await query(
    'payments',
    `select transaction_id, sum(amount_cents)::bigint as total from ledger_entries group by transaction_id having sum(amount_cents) <> 0`,
  );
  invariant(`${s}: every ledger movement sums to zero`, unbalanced.length === 0, unbalanced);
  const total = Number(
    (await query('payments', `select coalesce(sum(amount_cents), 0)::bigint as total from ledger_entries`))[0]
      .total,
  );
  invariant(`${s}: the whole ledger sums to zero`, total === 0, total);
  const negative = await query(
    'payments',
    `select account_id, min(running)::bigint as lowest from (
       select account_id, sum(amount_cents) over (partition by account_id order by id) as running
       from ledger_entries where account_id not like 'external:%') r
     group by account_id having min(running) < 0`,
  );
  invariant(`${s}: no internal account ever went below zero`, negative.length === 0, negative);

  const succeeded = await query<{
    id: string;
    provider_transaction_id: string;
    amount_cents: number;
    idempotency_key: string;
  }>(
    'payments',
    `select id, provider_transaction_id, amount_cents, idempotency_key from purchases where status = 'succeeded'`,
  );
  const posted = await query<{ reference: string; n: number }>(
    'payments',
    `select reference, count(*)::int as n from ledger_transactions where kind = 'purchase' group by reference`,
  );
  const postedRefs = new Map(posted.map((p) => [p.reference, p.n]));
  const notPosted = succeeded.filter((p) => postedRefs.get(`purchase:${p.id}`) !== 1);
  invariant(
    `${s}: every succeeded purchase is posted to the ledger once`,
    notPosted.length === 0 && posted.length === succeeded.length,
    { notPosted: notPosted.length, posted: posted.length, succeeded: succeeded.length },
  );

  // What each client was told succeeded is a succeeded purchase with that very transaction.
  const byTransaction = new Map(succeeded.map((p) => [p.provider_transaction_id, p]));
  const told = purchases.filter((p) => p.success && p.transactionId);
  const missing = told.filter((p) => {
    const row = byTransaction.get(p.transactionId!);
    return !row || (p.key !== '' && !row.idempotency_key.endsWith(`:${p.key}`));
  });
  invariant(
    `${s}: every checkout a client saw succeed is recorded as succeeded, under its key`,
    missing.length === 0,
    missing.slice(0, 3),
  );

  // The provider charged each purchase once.
  const provider = await providerRecords();
  const chargesPerOrder = new Map<string, number>();
  for (const c of provider.charges.filter((c) => c.charged))
    chargesPerOrder.set(c.orderId, (chargesPerOrder.get(c.orderId) ?? 0) + 1);
  const twice = [...chargesPerOrder].filter(([, n]) => n > 1);
  invariant(`${s}: no order charged twice at the provider`, twice.length === 0, twice);
  const uncharged = succeeded.filter((p) => chargesPerOrder.get(p.id) !== 1);
  invariant(
    `${s}: every succeeded purchase was charged exactly once`,
    uncharged.length === 0,
    uncharged.slice(0, 3),
  );
  const unowned = [...chargesPerOrder.keys()].filter((orderId) => !succeeded.some((p) => p.id === orderId));
  invariant(
    `${s}: no charge at the provider without a succeeded purchase`,
    unowned.length === 0,
    unowned.slice(0, 3),
  );

  // Delivered: every succeeded purchase credited to the game exactly once (its primary key is the purchase id).
  const creditedNow = async () =>
    new Set(
      (await query<{ purchase_id: string }>('game', `select purchase_id::text from purchases`)).map(
        (r) => r.purchase_id,
      ),
    );
  await waitFor(
    'purchases to reach the game',
    async () => {
      const now = await creditedNow();
      return succeeded.every((p) => now.has(p.id));
    },
    20_000,
    500,
  ).catch(() => undefined);
  const credited = await creditedNow();
  const uncredited = succeeded.filter((p) => !credited.has(p.id));
  invariant(
    `${s}: every succeeded purchase is credited to the game`,
    uncredited.length === 0,
    uncredited.slice(0, 3),
  );
  invariant(`${s}: the game credits no purchase payments does not know`, credited.size === succeeded.length, {
    game: credited.size,
    payments: succeeded.length,
  });

  // Payouts: one provider payout per completed payout, and none while another is unfinished for the account.
  const completed = await query<{ id: string; amount_cents: number; provider_batch_id: string | null }>(
    'payments',
    `select id, amount_cents, provider_batch_id from payouts where status = 'completed'`,
  );
  const postedPayouts = await query<{ n: number }>(
    'payments',
    `select count(*)::int as n from ledger_transactions where kind = 'payout'`,
  );
  invariant(`${s}: every completed payout is posted once`, postedPayouts[0]!.n === completed.length, {
    posted: postedPayouts[0]!.n,
    completed: completed.length,
  });
  const paidBatches = new Map<string, number>();
  for (const p of provider.payouts)
    paidBatches.set(p.senderBatchId, (paidBatches.get(p.senderBatchId) ?? 0) + 1);
  invariant(
    `${s}: no payout batch paid twice at the provider`,
    [...paidBatches.values()].every((n) => n === 1),
    [...paidBatches].filter(([, n]) => n > 1),
  );
  // Money goes only to a confirmed address: every completed payout went to the PayPal email its account
  // confirmed from the link mailed to its email, before the payout was asked.
  const unconfirmed = await query<{ id: string; paypal_email: string }>(
    'payments',
    `select p.id, p.paypal_email from payouts p where p.status = 'completed' and not exists (
       select 1 from payout_email_changes c where c.user_id = p.user_id and c.paypal_email = p.paypal_email
         and c.confirmed_at is not null and c.confirmed_at <= p.created_at)`,
  );
  figures.payoutsToUnconfirmedAddress = Math.max(figures.payoutsToUnconfirmedAddress, unconfirmed.length);
  figures.payoutsCheckedForConfirmation = Math.max(figures.payoutsCheckedForConfirmation, completed.length);
  invariant(
    `${s}: every payout went to an address its account confirmed from its email`,
    unconfirmed.length === 0,
    unconfirmed.slice(0, 3),
  );
  // What PayPal gave back (an item RETURNED, FAILED, REFUNDED or REVERSED) the ledger returns to the
  // account it left (docs/payments.md, "After the payout: PayPal's item status"): it is not paid out.
  const givenBack = new Set(['RETURNED', 'FAILED', 'REFUNDED', 'REVERSED']);
  const providerTotal = provider.payouts
    .filter((p) => !givenBack.has(p.transactionStatus ?? 'SUCCESS'))
    .reduce((sum, p) => sum + p.amountCents, 0);
  const ledgerPaid = Number(
    (
      await query(
        'payments',
        `select coalesce(sum(amount_cents), 0)::bigint as total from ledger_entries where account_id = 'external:paypal'`,
      )
    )[0].total,
  );
  invariant(
    `${s}: what the provider paid out equals what the ledger paid out`,
    providerTotal === ledgerPaid,
    { provider: providerTotal, ledger: ledgerPaid },
  );
  const paidIds = collects.filter((c) => c.transactionId).map((c) => c.transactionId!);
  invariant(
    `${s}: every collect a client saw succeed has its own transaction`,
    new Set(paidIds).size === paidIds.length,
    paidIds.length,
  );

  // Refunds: each completed one gave back at the provider what the ledger says; none is unfinished
  // past its bound (docs/payments.md, "Unfinished money operations": the refund's lease, 3 ×
  // BRAINTREE_TIMEOUT_MS + GAME_TIMEOUT_MS + 5 s, and the next pass, RECONCILE_INTERVAL_MS).
  const refundedAtProvider = new Map(
    provider.charges.map((c) => [c.orderId, (c as { refundedCents?: number }).refundedCents ?? 0]),
  );
  const wrongRefunds = await query<{ id: string; amount: number; ledger: number | null }>(
    'payments',
    `select r.purchase_id::text as id, r.amount_cents as amount,
            (select sum(e.amount_cents)::int from ledger_transactions t join ledger_entries e on e.transaction_id = t.id
              where t.reference = 'refund:' || r.purchase_id::text and e.account_id = 'external:braintree') as ledger
       from refunds r where r.status = 'completed'`,
  );
  const disagreeing = wrongRefunds.filter(
    (r) => r.ledger !== r.amount || refundedAtProvider.get(r.id) !== r.amount,
  );
  invariant(
    `${s}: every refund gave back once what the ledger says`,
    disagreeing.length === 0,
    disagreeing.slice(0, 3),
  );
  const overdue = await query(
    'payments',
    `select purchase_id from refunds where status in ('returning', 'returned')
        and updated_at < now() - make_interval(secs => $1)`,
    [REFUND_BOUND_SECONDS],
  );
  invariant(
    `${s}: no unfinished money operation older than its bound`,
    overdue.length === 0,
    overdue.slice(0, 3),
  );

  // Every round the game closed was credited to its winner once, with its pot.
  const undeliveredWins = async () => {
    const gameWins = await query<{ round: string; pot_cents: string }>(
      'game',
      `select round::text, pot_cents::text from winners`,
    );
    const paymentWins = new Map(
      (
        await query<{ round: string; pot_cents: string }>(
          'payments',
          `select round::text, pot_cents::text from round_wins`,
        )
      ).map((r) => [r.round, r.pot_cents]),
    );
    return gameWins.filter((w) => paymentWins.get(w.round) !== w.pot_cents);
  };
  await waitFor(
    'wins to reach payments',
    async () => (await undeliveredWins()).length === 0,
    WIN_CREDIT_BOUND_MS,
    500,
  ).catch(() => undefined);
  const undelivered = await undeliveredWins();
  invariant(
    `${s}: every round won is credited to the winner with its pot`,
    undelivered.length === 0,
    undelivered.slice(0, 3),
  );
}
