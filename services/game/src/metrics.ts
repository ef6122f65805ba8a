import type { Metrics } from '@omc/service-kit';

export function gameMetrics(metrics: Metrics) {
  let backlog: () => Promise<number> = async () => 0;
  return {
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
    roundsWon: metrics.counter('game_rounds_won_total', 'Rounds closed by this instance'),
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
        this.set(await backlog().catch(() => -1));
      },
    ),
    observeOutboxBacklog(source: () => Promise<number>) {
      backlog = source;
    },
  };
}

export type GameMetrics = ReturnType<typeof gameMetrics>;
