import { STAGE_BUCKETS, type Metrics } from '@omc/service-kit';

export interface RoundView {
  round: number;
  globalClicks: number;
  potCents: number;
}

/** What the gauges read at each scrape. */
export interface GameGaugeSources {
  /** Outbox events not yet published. */
  outboxBacklog: () => Promise<number>;
  /** Journal entries in Redis not yet in Postgres. */
  journalBacklog: () => Promise<number>;
  /** The round as Redis holds it. */
  round: () => Promise<RoundView | undefined>;
  /** Clicks that end a round (ROUND_TARGET). */
  roundTarget: number;
}

export function gameMetrics(metrics: Metrics, sources: GameGaugeSources) {
  // The round as Redis holds it, read at each scrape (one small read): its number, clicks, target, pot.
  const round = metrics.gauge('game_round', 'The round being played', [], async function collect() {
    const state = await sources.round().catch(() => undefined);
    this.set(state?.round ?? -1);
    clicks.set(state?.globalClicks ?? -1);
    pot.set(state?.potCents ?? -1);
    roundTarget.set(sources.roundTarget);
  });
  const clicks = metrics.gauge('game_round_clicks', 'Clicks made in the round being played');
  const roundTarget = metrics.gauge('game_round_target', 'Clicks that end a round (ROUND_TARGET)');
  const pot = metrics.gauge('game_pot_cents', 'The pot of the round being played, in cents');
  return {
    round,
    clicks: metrics.counter(
      'game_clicks_total',
      'Clicks by outcome (accepted, no_clicks, rate_limited, unknown_user, deleted_user)',
      ['outcome'],
    ),
    batchSize: metrics.histogram(
      'game_click_batch_size',
      'Clicks sent to Redis in one script call',
      [],
      [1, 2, 5, 10, 25, 50, 100, 250, 500, 1000],
    ),
    // A click's stages in the engine (docs/performance.md, "The latency budget").
    batchWait: metrics.histogram(
      'game_click_batch_wait_seconds',
      "How long a batch's oldest click waited in the queue for it",
      [],
      STAGE_BUCKETS,
    ),
    batchRun: metrics.histogram(
      'game_click_batch_seconds',
      "One batch's script call: the way to Redis, the script, the way back",
      [],
      STAGE_BUCKETS,
    ),
    publishWait: metrics.histogram(
      'game_state_publish_wait_seconds',
      'From the first change after a publication to the publication that carries it (the publish slot)',
      [],
      STAGE_BUCKETS,
    ),
    roundsWon: metrics.counter('game_rounds_won_total', 'Rounds closed by this instance'),
    winAnswers: metrics.counter(
      'game_win_answers_total',
      "How the closing click's wait for its win's write ended (written, duplicate, fenced, replayed, failed, timeout)",
      ['ended'],
    ),
    purchasesReconciled: metrics.counter(
      'game_purchases_reconciled_total',
      "Purchases applied from payments' record by reconciliation (their event never arrived)",
    ),
    eventsConsumed: metrics.counter('game_events_consumed_total', 'Events consumed by subject and outcome', [
      'subject',
      'outcome',
    ]),
    statePublished: metrics.counter('game_state_published_total', 'game.state.v1 messages published'),
    outboxBacklog: metrics.gauge(
      'game_outbox_backlog',
      'Outbox events not yet published',
      [],
      async function collect() {
        this.set(await sources.outboxBacklog().catch(() => -1));
      },
    ),
    // The write-behind journal: entries in Redis not yet in Postgres (-1 while Redis does not answer).
    journalBacklog: metrics.gauge(
      'game_journal_backlog_entries',
      'Journal entries in Redis not yet written to Postgres',
      [],
      async function collect() {
        this.set(await sources.journalBacklog().catch(() => -1));
      },
    ),
    journalFlushed: metrics.counter(
      'game_journal_flushed_entries_total',
      'Journal entries written to Postgres by this instance',
    ),
    stateRebuilds: metrics.counter(
      'game_state_rebuilds_total',
      'Round state rebuilt from Postgres: Redis had lost it (missing) or was behind Postgres (stale)',
      ['cause'],
    ),
  };
}

export type GameMetrics = ReturnType<typeof gameMetrics>;
