import type { Metrics } from '@omc/service-kit';

export interface PaymentsMetrics {
  checkouts: ReturnType<Metrics['counter']>;
  payouts: ReturnType<Metrics['counter']>;
  eventsConsumed: ReturnType<Metrics['counter']>;
}

export function paymentsMetrics(metrics: Metrics, outboxBacklog: () => Promise<number>): PaymentsMetrics {
  metrics.gauge('payments_outbox_backlog', 'Events written to the outbox and not yet published', [], async function () {
    this.set(await outboxBacklog().catch(() => -1));
  });
  return {
    checkouts: metrics.counter('payments_checkouts_total', 'Checkouts by outcome', ['outcome']),
    payouts: metrics.counter('payments_payouts_total', 'Payouts by outcome', ['outcome']),
    eventsConsumed: metrics.counter('payments_events_consumed_total', 'Events consumed from JetStream', ['subject', 'outcome']),
  };
}
