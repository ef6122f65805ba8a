// The websocket tunnel's counters: upgrades by outcome, and the tunnels open now.
import type { Metrics } from '@omc/service-kit';

export type UpgradeOutcome = 'tunnelled' | 'not_found' | 'too_many' | 'unavailable';

/** Registers the tunnel's metrics; the returned function counts one upgrade's outcome. */
export function tunnelMetrics(
  metrics: Metrics,
  openTunnels: () => number,
): (outcome: UpgradeOutcome) => void {
  const upgrades = metrics.counter('gateway_websocket_upgrades_total', 'Websocket upgrades, by outcome', [
    'outcome',
  ]);
  metrics.gauge(
    'gateway_websocket_tunnels_open',
    'Websocket connections open through the gateway',
    [],
    function collect() {
      this.set(openTunnels());
    },
  );
  return (outcome) => upgrades.inc({ outcome });
}
