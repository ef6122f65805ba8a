// The fan-out to this instance's sockets: a tick carries the state if it changed and the user count if it
// is due, encoded once for all local sockets and written to each in one write; at most one state a period
// (1000 / BROADCAST_HZ), sent as it arrives (state-pace.ts). A winner goes out the same way at once.
import type { Namespace } from 'socket.io';
import { LatestState, stateView } from './game-state.js';
import type { LiveMetrics } from './live-metrics.js';
import type { Presence } from './presence.js';
import { writeEventsToRoom, type RoomEvent } from './room-writer.js';
import { startStatePace } from './state-pace.js';

/**
 * How long the first state of a period waits for the other game instances' (published at the same
 * moment): a few milliseconds of network and event-loop jitter.
 */
const GATHER_MS = 5;

/** Every socket gets the whole state (docs/client-contract.md): what a guest may not see, the interface hides. */
export const EVERYONE = 'everyone';

export interface Broadcast {
  /** Writes `events` to every local socket now, counted by event. */
  toEveryone(events: RoomEvent[]): void;
  /** A newer state arrived (LatestState took it). */
  stateArrived(): void;
  stop(): void;
}

export function startBroadcast(options: {
  room: Namespace;
  latest: LatestState;
  presence: Presence;
  metrics: LiveMetrics;
  clock: () => number;
  hz: number;
}): Broadcast {
  const { room, latest, presence, metrics } = options;

  const toEveryone = (events: RoomEvent[]) => {
    const audience = room.adapter.rooms.get(EVERYONE)?.size ?? 0;
    for (const [event] of events) metrics.emitted.inc({ event }, audience);
    const started = performance.now();
    const written = writeEventsToRoom(room, EVERYONE, events);
    metrics.tickWrite.observe((performance.now() - started) / 1000);
    if (written.direct > 0) metrics.writes.inc({ path: 'direct' }, written.direct);
    if (written.fallback > 0) metrics.writes.inc({ path: 'fallback' }, written.fallback);
  };

  // The state if asked for and it changed, and the user count if it is due.
  const tick = (withState: boolean): boolean => {
    const events: RoomEvent[] = [];
    const state = withState ? latest.takeChanged() : undefined;
    if (state) {
      metrics.lag.observe(Math.max(0, options.clock() - state.at) / 1000);
      events.push(['gameStateUpdate', stateView(state)]);
    }
    const count = presence.takeDue();
    if (count !== null) events.push(['userCountUpdate', count]);
    if (events.length > 0) toEveryone(events);
    void presence.count.flush();
    return state !== undefined;
  };
  const pace = startStatePace({
    periodMs: Math.round(1000 / options.hz),
    gatherMs: GATHER_MS,
    clock: options.clock,
    tick,
  });

  return { toEveryone, stateArrived: pace.arrived, stop: pace.stop };
}
