import type { Metrics } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from './db/schema.js';
import { checkLedger } from './ledger/check.js';
import { unfinishedRefundsAge } from './refunds/refunds.repo.js';
import { unfinishedPayouts } from './payouts/payouts.repo.js';

export interface PaymentsMetrics {
  checkouts: ReturnType<Metrics['counter']>;
  payouts: ReturnType<Metrics['counter']>;
  eventsConsumed: ReturnType<Metrics['counter']>;
  /** Round won events by outcome: credited, duplicate, forged (the game has no such win). */
  roundWonEvents: ReturnType<Metrics['counter']>;
  /** Wins and purchases repaired by reconciliation with the producer's record (their event lost). */
  reconciled: ReturnType<Metrics['counter']>;
  /** A second charge for one purchase that Braintree would not void: someone must refund it by hand. */
  voidsFailed: ReturnType<Metrics['counter']>;
  /** Refund attempts by outcome: completed, refused, provider_unavailable, game_unavailable. */
  refunds: ReturnType<Metrics['counter']>;
}

export function paymentsMetrics(metrics: Metrics, outboxBacklog: () => Promise<number>): PaymentsMetrics {
  metrics.gauge(
    'payments_outbox_backlog',
    'Events written to the outbox and not yet published',
    [],
    async function () {
      this.set(await outboxBacklog().catch(() => -1));
    },
  );
  const payouts = metrics.counter(
    'payments_payouts_total',
    'Payouts by outcome (completed, refused, unknown; returned: paid, then given back by PayPal; held: a collect held for a purchase that may still be taken back)',
    ['outcome'],
  );
  for (const outcome of ['completed', 'refused', 'unknown', 'returned', 'held']) payouts.inc({ outcome }, 0);
  const voidsFailed = metrics.counter(
    'payments_voids_failed_total',
    'Duplicate charges Braintree would not void (refund them by hand; the log line names the transaction)',
  );
  voidsFailed.inc(0);
  const refunds = metrics.counter(
    'payments_refunds_total',
    'Refund attempts by outcome (completed, refused, provider_unavailable, game_unavailable)',
    ['outcome'],
  );
  for (const outcome of ['completed', 'refused', 'provider_unavailable', 'game_unavailable'])
    refunds.inc({ outcome }, 0);
  return {
    voidsFailed,
    refunds,
    checkouts: metrics.counter('payments_checkouts_total', 'Checkouts by outcome', ['outcome']),
    payouts,
    eventsConsumed: metrics.counter('payments_events_consumed_total', 'Events consumed from JetStream', [
      'subject',
      'outcome',
    ]),
    roundWonEvents: metrics.counter(
      'payments_round_won_events_total',
      "Round won events by outcome (credited, duplicate, forged: the game's record has no such win)",
      ['outcome'],
    ),
    reconciled: metrics.counter(
      'payments_reconciled_total',
      "Wins credited by reconciliation with the game's record (their event never arrived)",
      ['kind'],
    ),
  };
}

/** How often the ledger check runs at most, driven by scrapes: it reads the whole ledger. */
const LEDGER_CHECK_EVERY_MS = 5 * 60_000;

/**
 * What the money looks like from outside: payouts not finished (PayPal's answer unknown, or a payout in
 * flight) with the oldest one's age, and the ledger check's latest result (the problems it found; -1
 * when it could not run). The ledger check runs at the first scrape and then in the background at most
 * every five minutes, so a scrape never waits for it twice.
 */
export function observeMoney(metrics: Metrics, db: Kysely<Database>, log: Logger): void {
  metrics.gauge(
    'payments_payouts_unfinished',
    'Payouts pending: being paid, or left unknown by PayPal and retried',
    [],
    async function () {
      this.set((await unfinishedPayouts(db).catch(() => ({ count: -1 }))).count);
    },
  );
  metrics.gauge(
    'payments_payout_oldest_unfinished_age_seconds',
    'Age of the oldest pending payout (0 when none)',
    [],
    async function () {
      this.set((await unfinishedPayouts(db).catch(() => ({ oldestAgeSeconds: 0 }))).oldestAgeSeconds);
    },
  );
  metrics.gauge(
    'payments_refunds_unfinished_oldest_age_seconds',
    'Age of the oldest refund not finished yet (returning or returned; 0 when none): the money pass finishes it',
    [],
    async function () {
      this.set((await unfinishedRefundsAge(db).catch(() => ({ oldestAgeSeconds: 0 }))).oldestAgeSeconds);
    },
  );
  let problems = -1;
  let checkedAt = 0;
  let running: Promise<void> | undefined;
  const run = () =>
    (running ??= checkLedger(db)
      .then((report) => {
        problems = report.problems.length;
        if (!report.ok) log.error({ problems: report.problems }, 'ledger check found problems');
      })
      .catch((error: unknown) => {
        problems = -1;
        log.warn({ err: error }, 'ledger check could not run');
      })
      .finally(() => {
        checkedAt = Date.now();
        running = undefined;
      }));
  metrics.gauge(
    'payments_ledger_check_problems',
    'Problems the latest ledger check found (0: sound; -1: it could not run)',
    [],
    async function () {
      if (checkedAt === 0) await run();
      else if (Date.now() - checkedAt > LEDGER_CHECK_EVERY_MS) void run();
      this.set(problems);
    },
  );
  metrics.gauge(
    'payments_ledger_check_timestamp_seconds',
    'When the latest ledger check finished (Unix time)',
    [],
    function () {
      this.set(checkedAt / 1000);
    },
  );
}
