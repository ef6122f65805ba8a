// The invariants, read from Postgres (read-only sessions on each service's own database) and from the
// payment provider's emulator, compared with what players were told. Each finding is keyed, so a row
// counts only what went wrong since the rows before it.
import pg from 'pg';
import type { ClickRecord, PurchaseRecord } from './players.js';

export type Service = 'auth' | 'game' | 'payments';

export class Stores {
  constructor(
    private readonly databaseUrls: Record<Service, string>,
    private readonly emulatorUrl: string,
  ) {}

  async query<T = any>(service: Service, text: string, values: unknown[] = []): Promise<T[]> {
    const client = new pg.Client({
      connectionString: this.databaseUrls[service],
      options: '-c default_transaction_read_only=on',
      // The observer's own connection: longer than a paused store (15 s) and a loaded machine's slow
      // connect, so a read the matrix makes is not taken for a loss when only the observer was slow.
      connectionTimeoutMillis: 20_000,
      statement_timeout: 10_000,
    });
    await client.connect();
    try {
      return (await client.query(text, values)).rows as T[];
    } finally {
      await client.end();
    }
  }

  async providerCharges(): Promise<ProviderCharge[]> {
    const response = await fetch(`${this.emulatorUrl}/__emulator/braintree/transactions`);
    return ((await response.json()) as { transactions: ProviderCharge[] }).transactions;
  }
}

/** A transaction as the Braintree emulator records it (a sale, or a credit that refunds one). */
export interface ProviderCharge {
  orderId: string;
  charged: boolean;
  amountCents: number;
  refundedCents: number;
  type: string;
}

export interface Findings {
  /** Something recorded (paid, won, signed up) that did not reach where it must: keyed descriptions. */
  lost: Set<string>;
  /** Something applied or paid more than once. */
  doubled: Set<string>;
  /** Not yet settled (an event in flight, an outbox not drained): waited on, not yet counted. */
  pending: string[];
  /**
   * Click ordinals handed out twice: clicks Redis accepted and lost before the journal carried them to
   * Postgres (a wiped or rolled-back Redis), whose ordinals went to later clicks. Within the documented
   * bound (the clicks of the last flush interval) this is no loss of anything Postgres recorded; the
   * counter check below catches a counter that went back past what Postgres holds.
   */
  recounted: Set<string>;
  /** Money the provider took back, and collects held for it: counted, not faults. */
  figures: { clawbacks: number; heldPayouts: number };
}

export interface Told {
  clicks: readonly ClickRecord[];
  purchases: readonly PurchaseRecord[];
}

/**
 * How old an unfinished money operation may be before it counts as lost (docs/payments.md, "Unfinished
 * money operations", with this suite's settings: BRAINTREE_TIMEOUT_MS and PAYPAL_TIMEOUT_MS 3 s, the
 * default RECONCILE_INTERVAL_MS 30 s and GAME_TIMEOUT_MS 2 s). A checkout's lease is two provider
 * timeouts, and one Braintree has no record of is failed ten minutes after its last attempt; a refund's
 * lease is 3 × BRAINTREE_TIMEOUT_MS + GAME_TIMEOUT_MS + 5 s; each is then finished by the next pass.
 */
export const UNFINISHED_BOUND_SECONDS = {
  checkout: 600 + 6 + 30,
  payout: 5 * 3 + 30,
  refund: 3 * 3 + 2 + 5 + 30,
  // A clawback is driven by every money pass until the game has taken back (GAME_TIMEOUT_MS a call).
  clawback: 2 + 30 + 30,
} as const;

/**
 * The ledger against the provider, purchase by purchase: what the ledger says Braintree holds of each
 * posted purchase (its price, less what its refund or clawback gave back) equals what Braintree holds
 * (a sale still charged, less its refunds; nothing once it declined settlement or a dispute was lost).
 */
export async function ledgerAgainstProvider(stores: Stores, charges: ProviderCharge[]): Promise<string[]> {
  const ledger = await stores.query<{ id: string; held: number; disputed: boolean }>(
    'payments',
    `select p.id::text as id, (-sum(e.amount_cents))::int as held,
            exists (select 1 from clawbacks c where c.purchase_id = p.id and c.cause = 'dispute_lost'
                      and c.status = 'completed') as disputed
       from purchases p
       join ledger_transactions t on t.reference in ('purchase:' || p.id::text, 'refund:' || p.id::text,
              'clawback:' || p.id::text, 'clawback-loss:' || p.id::text)
       join ledger_entries e on e.transaction_id = t.id and e.account_id = 'external:braintree'
      where p.status = 'succeeded'
      group by p.id`,
  );
  const provider = new Map<string, number>();
  for (const c of charges)
    if (c.type === 'sale')
      provider.set(
        c.orderId,
        (provider.get(c.orderId) ?? 0) + (c.charged ? c.amountCents - c.refundedCents : 0),
      );
  return ledger
    .filter((p) => (p.disputed ? 0 : (provider.get(p.id) ?? 0)) !== p.held)
    .map(
      (p) => `purchase ${p.id}: the ledger has ${p.held} at Braintree, Braintree ${provider.get(p.id) ?? 0}`,
    );
}

/**
 * Purchases the provider took back, and the winners whose collect is held now: a winner's collect waits
 * while a purchase made up to the win may still be taken back (docs/payments.md, "Clawbacks and payout
 * holds").
 */
export async function moneyFigures(stores: Stores): Promise<Findings['figures']> {
  const [money] = await stores.query<{ clawbacks: number; held: number }>(
    'payments',
    `select (select count(*)::int from clawbacks) as clawbacks,
            (select count(distinct p.user_id)::int from purchases p
               join (select winner_user_id, max(created_at) as won_at from round_wins group by winner_user_id) w
                 on w.winner_user_id = p.user_id and p.created_at <= w.won_at
              where p.status = 'succeeded'
                and (p.settlement_status is null or p.settlement_status not in ('settled', 'settlement_confirmed')
                  or (p.dispute_status is not null and p.dispute_status <> 'won'))) as held`,
  );
  return { clawbacks: money?.clawbacks ?? 0, heldPayouts: money?.held ?? 0 };
}

/** Every invariant of the matrix, once. `settled` is false while something is still on its way. */
export async function audit(stores: Stores, told: Told): Promise<Findings> {
  const lost = new Set<string>();
  const doubled = new Set<string>();
  const pending: string[] = [];

  // Purchases: every one payments recorded as succeeded is credited to the game once, charged once.
  // The game's record is read first: traffic goes on while the audit reads, and a purchase the game
  // credits between the two reads was already succeeded at payments before, so read in this order a
  // credit missing from payments' list is a real one, never one that happened in between.
  const credited = new Set(
    (await stores.query<{ id: string }>('game', `select purchase_id::text as id from purchases`)).map(
      (r) => r.id,
    ),
  );
  const succeeded = await stores.query<{ id: string; tx: string }>(
    'payments',
    `select id::text, provider_transaction_id as tx from purchases where status = 'succeeded'`,
  );
  for (const p of succeeded) if (!credited.has(p.id)) pending.push(`purchase ${p.id} not credited`);
  const succeededIds = new Set(succeeded.map((p) => p.id));
  for (const id of credited) if (!succeededIds.has(id)) doubled.add(`purchase ${id} credited, never paid`);
  const transactions = new Set(succeeded.map((p) => p.tx));
  for (const p of told.purchases)
    if (p.success && p.transactionId && !transactions.has(p.transactionId))
      lost.add(`checkout ${p.key} told success, not recorded`);
  const charges = new Map<string, number>();
  for (const c of (await stores.providerCharges()).filter((c) => c.charged))
    charges.set(c.orderId, (charges.get(c.orderId) ?? 0) + 1);
  for (const [order, n] of charges) if (n > 1) doubled.add(`order ${order} charged ${n} times`);
  const postings = await stores.query<{ reference: string; n: number }>(
    'payments',
    `select reference, count(*)::int as n from ledger_transactions group by reference having count(*) > 1`,
  );
  for (const p of postings) doubled.add(`${p.reference} posted ${p.n} times`);
  const unposted = await stores.query<{ id: string }>(
    'payments',
    `select p.id::text from purchases p left join ledger_transactions t on t.reference = 'purchase:' || p.id::text
      where p.status = 'succeeded' and t.id is null`,
  );
  for (const p of unposted) pending.push(`purchase ${p.id} not posted`);

  // Refunds: each completed one gave back at the provider exactly what the ledger says, once.
  const refunded = new Map<string, number>();
  for (const c of await stores.providerCharges())
    if (c.type === 'sale' && c.refundedCents > 0) refunded.set(c.orderId, c.refundedCents);
  const refunds = await stores.query<{ id: string; status: string; amount: number; ledger: number | null }>(
    'payments',
    `select r.purchase_id::text as id, r.status, r.amount_cents as amount,
            (select sum(e.amount_cents)::int from ledger_transactions t join ledger_entries e on e.transaction_id = t.id
              where t.reference = 'refund:' || r.purchase_id::text and e.account_id = 'external:braintree') as ledger
       from refunds r`,
  );
  for (const r of refunds) {
    if (r.status !== 'completed') continue;
    const provider = refunded.get(r.id) ?? 0;
    if (r.ledger !== r.amount)
      lost.add(`refund ${r.id} completed, ledger gave back ${r.ledger} of ${r.amount}`);
    if (provider > r.amount)
      doubled.add(`refund ${r.id}: the provider gave back ${provider}, recorded ${r.amount}`);
    else if (provider < r.amount)
      lost.add(`refund ${r.id}: recorded ${r.amount}, the provider gave back ${provider}`);
  }
  for (const [order, cents] of refunded)
    if (!refunds.some((r) => r.id === order))
      doubled.add(`order ${order} refunded ${cents} with no refund recorded`);

  // Clawbacks and held collects are counted; the ledger holds at Braintree what Braintree holds.
  const money = await moneyFigures(stores);
  for (const p of await ledgerAgainstProvider(stores, await stores.providerCharges())) pending.push(p);

  // Unfinished money operations older than their bound: 0.
  const overdue = await stores.query<{ what: string }>(
    'payments',
    `select 'checkout ' || id::text as what from purchases
       where status = 'pending' and updated_at < now() - make_interval(secs => $1)
     union all
     select 'payout ' || id::text from payouts
       where status = 'pending' and created_at < now() - make_interval(secs => $2)
     union all
     select 'refund ' || purchase_id::text from refunds
       where status in ('returning', 'returned') and updated_at < now() - make_interval(secs => $3)
     union all
     select 'clawback ' || purchase_id::text from clawbacks
       where status = 'taking_back' and updated_at < now() - make_interval(secs => $4)`,
    [
      UNFINISHED_BOUND_SECONDS.checkout,
      UNFINISHED_BOUND_SECONDS.payout,
      UNFINISHED_BOUND_SECONDS.refund,
      UNFINISHED_BOUND_SECONDS.clawback,
    ],
  );
  for (const o of overdue) lost.add(`${o.what} unfinished, older than its bound`);

  // Rounds: one winner per round, told to one clicker, credited once to that winner with its pot.
  const winners = await stores.query<{ round: string; username: string | null; pot: string }>(
    'game',
    `select round::text, username, pot_cents::text as pot from winners`,
  );
  const wins = new Map(
    (
      await stores.query<{ round: string; pot: string }>(
        'payments',
        `select round::text, pot_cents::text as pot from round_wins`,
      )
    ).map((w) => [w.round, w.pot]),
  );
  for (const w of winners) {
    const paid = wins.get(w.round);
    if (paid === undefined) pending.push(`round ${w.round} won, not credited`);
    else if (paid !== w.pot) lost.add(`round ${w.round} credited ${paid} of a ${w.pot} pot`);
  }
  const winnerOf = new Map(winners.map((w) => [w.round, w.username]));
  const toldWon = new Map<string, string[]>();
  for (const c of told.clicks)
    if (c.won) toldWon.set(String(c.round), [...(toldWon.get(String(c.round)) ?? []), c.user]);
  for (const [round, users] of toldWon) {
    if (users.length > 1) doubled.add(`round ${round} won by ${users.length} clicks`);
    const recorded = winnerOf.get(round);
    if (recorded === undefined) pending.push(`round ${round} told won, no winner row yet`);
    else if (!users.includes(recorded ?? ''))
      lost.add(`round ${round}: ${users.join(',')} told won, ${recorded} recorded`);
  }
  const reopened = await stores.query<{ round: string }>(
    'game',
    `select r.round::text from rounds r join winners w on w.round = r.round where r.closed_at is null`,
  );
  for (const r of reopened) doubled.add(`round ${r.round} won and open again`);

  // Clicks: an ordinal of a round given to two clicks (a counter that went back hands them out again).
  const ordinals = new Map<string, number>();
  for (const c of told.clicks)
    if (c.status === 200) {
      const key = `${c.round}:${c.globalClicks}`;
      ordinals.set(key, (ordinals.get(key) ?? 0) + 1);
    }
  const recounted = new Set<string>();
  for (const [key, n] of ordinals) if (n > 1) recounted.add(`click ordinal ${key} given more than once`);

  // Events: every outbox drains, and every sign-up reaches the game.
  for (const service of ['auth', 'game', 'payments'] as const) {
    const [row] = await stores.query<{ n: number }>(
      service,
      `select count(*)::int as n from outbox where published_at is null`,
    );
    const n = row?.n ?? 0;
    if (n > 0) pending.push(`${service} outbox holds ${n} unpublished`);
  }
  const authUsers = await stores.query<{ id: string }>('auth', `select id::text from users`);
  const gameUsers = new Set(
    (await stores.query<{ id: string }>('game', `select id::text from users`)).map((u) => u.id),
  );
  for (const u of authUsers) if (!gameUsers.has(u.id)) pending.push(`user ${u.id} unknown to the game`);

  return {
    lost,
    doubled,
    pending,
    recounted,
    figures: money,
  };
}
