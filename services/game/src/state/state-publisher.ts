// game.state.v1 on core NATS for the realtime tick. Publications land on the wall clock's multiples of
// STATE_PUBLISH_MS (the realtime tick's period): a change waits for the next one and goes out with every
// change since, so each game instance sends at most one state a period whatever the click rate, every
// instance's lands at the same moment, and realtime (broadcast.ts) sends it on as it arrives. A click
// batch hands over the state it produced; other changes (a purchase, a rename, a rebuilt state) are read
// from Redis at publish time, so what goes out is always a whole, recent state.
// The game also answers game.state.current.v1 requests (realtime asks at start-up); one instance of the
// queue group does.
import { makeEvent, SUBJECTS, type EventEnvelope } from '@omc/contracts';
import { publishTraced, traceCarrier, type Nats, type Notifier } from '@omc/service-kit';
import type { Subscription } from 'nats';
import type { Logger } from 'pino';
import type { GameEngine, HotState } from '../engine/game-engine.js';

export interface StatePublisher {
  /** The state changed: `state` is the new state when known, else it is read from Redis. */
  changed(state?: HotState): void;
  stop(): Promise<void>;
}

export function stateEvent(state: HotState, at: number): EventEnvelope<typeof SUBJECTS.gameState> {
  return makeEvent(SUBJECTS.gameState, {
    round: state.round,
    globalClicks: state.globalClicks,
    potCents: state.potCents,
    lastClickUser: state.lastClickUser,
    lastWinner: state.lastWinner,
    at,
  });
}

export function startStatePublisher(
  engine: GameEngine,
  changes: Notifier<[state?: HotState]>,
  nats: Nats,
  log: Logger,
  clock: () => number,
  options: {
    intervalMs: number;
    /** After each publication: how long its first change waited for it (ms), when a change prompted it. */
    onPublished?: (waitedMs: number | undefined) => void;
  },
): StatePublisher {
  const encoder = new TextEncoder();
  /** What the next publication sends: a known state, or "read it from Redis" (which wins: it is newer). */
  let pending: HotState | 'read' | undefined = 'read';
  /** The multiple of the period the last publication was for: the next is for a later one. */
  let lastSlot = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let reading = false;
  let stopped = false;

  /** The trace of the latest change (a purchase credited, say), which the next publication continues. */
  let pendingTrace: Record<string, string> | undefined;
  /** When the first change not yet published came (performance.now()). */
  let changedAt: number | undefined;

  const send = (state: HotState, waitingSince?: number) => {
    const data = encoder.encode(JSON.stringify(stateEvent(state, clock())));
    const trace = pendingTrace;
    pendingTrace = undefined;
    if (trace)
      void publishTraced(SUBJECTS.gameState, trace, (headers) =>
        nats.nc.publish(SUBJECTS.gameState, data, { headers }),
      );
    else nats.nc.publish(SUBJECTS.gameState, data);
    options.onPublished?.(waitingSince === undefined ? undefined : performance.now() - waitingSince);
  };

  const publish = () => {
    // A timer counts from the event loop's cached time, so it may fire a little before the multiple.
    const early = lastSlot * options.intervalMs - clock();
    if (early > 0) {
      timer = setTimeout(publish, early);
      return;
    }
    timer = undefined;
    if (stopped || reading || pending === undefined) return;
    const next = pending;
    pending = undefined;
    // What changes from here on waits for the next publication.
    const waitingSince = changedAt;
    changedAt = undefined;
    if (next !== 'read') {
      send(next, waitingSince);
      return;
    }
    reading = true;
    engine
      .readState()
      .then((state) => send(state, waitingSince))
      .catch((error: unknown) => {
        pending = 'read';
        changedAt ??= waitingSince;
        log.debug({ err: error }, 'state not published');
      })
      .finally(() => {
        reading = false;
        schedule();
      });
  };

  const schedule = () => {
    if (stopped || timer || reading || pending === undefined) return;
    const now = clock();
    const slot = Math.max(Math.floor(now / options.intervalMs) + 1, lastSlot + 1);
    lastSlot = slot;
    timer = setTimeout(publish, slot * options.intervalMs - now);
  };

  const subscription: Subscription = nats.nc.subscribe(SUBJECTS.gameStateRequest, {
    queue: 'game',
    callback: (error, msg) => {
      if (error) return;
      engine
        .readState()
        .then((state) => msg.respond(encoder.encode(JSON.stringify(stateEvent(state, clock())))))
        .catch((err) => log.warn({ err }, 'state request not answered'));
    },
  });

  schedule();

  const publisher: StatePublisher = {
    changed(state) {
      pendingTrace = traceCarrier() ?? pendingTrace;
      changedAt ??= performance.now();
      if (pending !== 'read') pending = state ?? 'read';
      schedule();
    },
    async stop() {
      stopped = true;
      stopListening();
      clearTimeout(timer);
      subscription.unsubscribe();
    },
  };
  // The engine's changes, while this publisher runs.
  const stopListening = changes.listen((state) => publisher.changed(state));
  return publisher;
}
