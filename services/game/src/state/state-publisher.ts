// game.state.v1 on core NATS for the realtime tick: published when the state changed, at most once per
// window (coalesced), read from Redis at publish time so it is the latest whole state. The game also
// answers game.state.current.v1 requests (realtime asks at start-up); one instance of the queue group does.
import { makeEvent, SUBJECTS, type EventEnvelope } from '@omc/contracts';
import type { Nats } from '@omc/service-kit';
import type { Subscription } from 'nats';
import type { Logger } from 'pino';
import type { GameEngine, HotState } from '../engine/game-engine.js';

export interface StatePublisher {
  markChanged(): void;
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
  nats: Nats,
  log: Logger,
  clock: () => number,
  options: { intervalMs: number; onPublished?: () => void },
): StatePublisher {
  let changed = true;
  let busy = false;
  const encoder = new TextEncoder();

  const timer = setInterval(() => {
    if (!changed || busy) return;
    changed = false;
    busy = true;
    engine
      .readState()
      .then((state) => {
        nats.nc.publish(SUBJECTS.gameState, encoder.encode(JSON.stringify(stateEvent(state, clock()))));
        options.onPublished?.();
      })
      .catch((error) => {
        changed = true;
        log.debug({ err: error }, 'state not published');
      })
      .finally(() => {
        busy = false;
      });
  }, options.intervalMs);
  timer.unref();

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

  return {
    markChanged: () => {
      changed = true;
    },
    async stop() {
      clearInterval(timer);
      subscription.unsubscribe();
    },
  };
}
