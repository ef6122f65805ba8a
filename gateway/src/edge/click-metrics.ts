// What the click admission shows an operator on /metrics (the OmcClicksShed alert reads the first).
import type { Admission, Metrics } from '@omc/service-kit';
import type { EarlyRetries } from './early-retry.js';

export interface ClickMetrics {
  shed(): void;
  refusedEarly(): void;
}

export function clickMetrics(
  metrics: Metrics,
  admission: Admission,
  earlyRetries: () => EarlyRetries | undefined,
): ClickMetrics {
  const shed = metrics.counter(
    'gateway_clicks_shed_total',
    'Clicks refused (503) because they waited past the target in a standing queue, or the queue was full',
  );
  const refusedEarly = metrics.counter(
    'gateway_clicks_retry_too_soon_total',
    'Clicks refused at once (429) because their client retried before the Retry-After it was given',
  );
  metrics.gauge(
    'gateway_click_penalised_clients',
    'Clients this gateway remembers as told to retry later (bounded by CLICK_PENALTY_MAX_KEYS)',
    [],
    function () {
      this.set(earlyRetries()?.size ?? 0);
    },
  );
  metrics.gauge('gateway_click_queue', 'Clicks waiting for their turn to go to the game', [], function () {
    this.set(admission.stats().queued);
  });
  metrics.gauge(
    'gateway_click_admission_limit',
    'Clicks the gateway lets in flight to the game at once',
    [],
    function () {
      this.set(admission.stats().limit);
    },
  );
  return { shed: () => shed.inc(), refusedEarly: () => refusedEarly.inc() };
}
