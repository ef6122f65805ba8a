// The game's state as it changes: core NATS game.state.v1 (a lost one is superseded by the next), plus
// a request for the current state at start-up and after every reconnect, so nothing waits for a click.
import { parseEvent, SUBJECTS } from '@omc/contracts';
import { backoffDelay, consumeTraced, RETRY_POLICIES, type Nats } from '@omc/service-kit';
import type { Subscription } from 'nats';
import type { Logger } from 'pino';
import type { GameStateEvent } from './game-state.js';

export interface StateFeedOptions {
  nats: Nats;
  log: Logger;
  onState: (state: GameStateEvent) => void;
  onResult?: (subject: string, outcome: 'ok' | 'invalid') => void;
  /** How long to wait for the game to answer a state request. */
  requestTimeoutMs?: number;
}

export interface StateFeed {
  /** Asks the game for its current state now; resolves whether it answered. */
  refresh(): Promise<boolean>;
  stop(): Promise<void>;
}

export function startStateFeed(options: StateFeedOptions): StateFeed {
  const { nats, log } = options;
  let stopped = false;
  let pendingRetry: NodeJS.Timeout | undefined;

  const accept = (raw: Uint8Array, subject: string): boolean => {
    try {
      options.onState(parseEvent(SUBJECTS.gameState, raw).data);
      options.onResult?.(subject, 'ok');
      return true;
    } catch (error) {
      log.warn({ err: error, subject }, 'game state does not match its contract; dropped');
      options.onResult?.(subject, 'invalid');
      return false;
    }
  };

  // The client re-subscribes by itself after a reconnect.
  const subscription: Subscription = nats.nc.subscribe(SUBJECTS.gameState, {
    callback: (error, msg) => {
      if (error) return;
      // A state that continues a trace (a purchase credited) is handed to the broadcast inside its span.
      if (msg.headers)
        void consumeTraced(
          msg.subject,
          msg.headers,
          () => accept(msg.data, msg.subject),
          'broadcast game.state.v1',
        );
      else accept(msg.data, msg.subject);
    },
  });

  const refresh = async (): Promise<boolean> => {
    if (stopped || nats.nc.isClosed()) return false;
    try {
      const reply = await nats.nc.request(SUBJECTS.gameStateRequest, new Uint8Array(), {
        timeout: options.requestTimeoutMs ?? 2000,
      });
      return accept(reply.data, SUBJECTS.gameStateRequest);
    } catch (error) {
      log.debug({ err: error }, 'the game did not answer the state request');
      return false;
    }
  };

  // Until the game answers once (it may start after us), keep asking; the feed then keeps us current.
  let unanswered = 0;
  const refreshUntilAnswered = async () => {
    clearTimeout(pendingRetry);
    if (stopped) return;
    if (!(await refresh()) && !stopped)
      pendingRetry = setTimeout(
        () => void refreshUntilAnswered(),
        backoffDelay(RETRY_POLICIES.stateRequest, unanswered++),
      );
    else unanswered = 0;
  };

  void (async () => {
    for await (const status of nats.nc.status()) {
      if (stopped) break;
      if (status.type === 'reconnect') {
        log.info('NATS reconnected; asking the game for its current state');
        void refreshUntilAnswered();
      }
    }
  })().catch(() => undefined);

  void refreshUntilAnswered();

  return {
    refresh,
    async stop() {
      stopped = true;
      clearTimeout(pendingRetry);
      if (!subscription.isClosed()) subscription.unsubscribe();
    },
  };
}
