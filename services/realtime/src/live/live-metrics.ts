// What the live server reports on /metrics: one place for every realtime_* series it feeds.
import type { Metrics } from '@omc/service-kit';

export type LiveMetrics = ReturnType<typeof createLiveMetrics>;

/** `sockets` is read at each scrape. */
export function createLiveMetrics(metrics: Metrics, sockets: () => number) {
  metrics.gauge('realtime_sockets_connected', 'Sockets connected to this instance', [], function collect() {
    this.set(sockets());
  });
  return {
    refused: metrics.counter(
      'realtime_connections_refused_total',
      'Connections refused because their address holds WS_MAX_PER_IP already, by where',
      ['where'],
    ),
    emitted: metrics.counter('realtime_messages_emitted_total', 'Messages written to sockets, by event', [
      'event',
    ]),
    writes: metrics.counter(
      'realtime_state_writes_total',
      'Writes of a tick (state, user count) or winner to sockets: directly as one pre-encoded buffer, or through Socket.IO',
      ['path'],
    ),
    consumed: metrics.counter(
      'realtime_events_consumed_total',
      'NATS messages consumed, by subject and outcome',
      ['subject', 'outcome'],
    ),
    lag: metrics.histogram(
      'realtime_broadcast_lag_seconds',
      'From the game producing a state to its broadcast',
      [],
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5],
    ),
    tickWrite: metrics.histogram(
      'realtime_tick_write_seconds',
      "Wall time of one tick's (or winner's) writes to this instance's sockets: what the last socket waits after the first",
      [],
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1],
    ),
    disconnects: metrics.counter(
      'realtime_disconnects_total',
      "Sockets that left this instance, by Socket.IO's reason (client namespace disconnect, transport close, ping timeout, server shutting down...)",
      ['reason'],
    ),
    users: metrics.gauge(
      'realtime_users_connected',
      'People connected across all instances (users, plus addresses without a token), as this instance last counted',
    ),
    moved: metrics.counter(
      'realtime_sockets_moved_total',
      'Sockets told to move to another instance and closed while this one drained',
    ),
  };
}
