// The game's state as it changes: core NATS game.state.v1 (a lost one is superseded by the next), plus
// a request for the current state at start-up and after every reconnect, so nothing waits for a click.
// Each state is read (JSON) as it arrives and checked against its contract only when it is used
// (game-state.ts): most are superseded before the next tick.
import { eventEnvelopeSchema, SUBJECTS } from '@omc/contracts';
import { backoffDelay, consumeTraced, RETRY_POLICIES, type Nats } from '@omc/service-kit';
import type { Subscription } from 'nats';
import type { Logger } from 'pino';
import type { GameStateEvent, StateCandidate } from './game-state.js';

export interface StateFeedOptions {
  nats: Nats;
  log: Logger;
  /** A state as it arrived (its shape looked at, its contract checked when `check` is called). */
  onState: (candidate: StateCandidate) => void;
  onResult?: (subject: string, outcome: 'ok' | 'invalid') => void;
  /** How long to wait for the game to answer a state request. */
  requestTimeoutMs?: number;
}

export interface StateFeed {
  /** Asks the game for its current state now; resolves whether it answered. */
  refresh(): Promise<boolean>;
  stop(): Promise<void>;
}

const decoder = new TextDecoder();

/** The fields the newest state is chosen by are there and numbers (the whole contract is checked on use). */
function looksLikeState(data: unknown): data is GameStateEvent {
  if (typeof data !== 'object' || data === null) return false;
  const { round, globalClicks, at } = data as Record<string, unknown>;
  return typeof round === 'number' && typeof globalClicks === 'number' && typeof at === 'number';
}

export function startStateFeed(options: StateFeedOptions): StateFeed {
  const { nats, log } = options;
  let stopped = false;
  let pendingRetry: NodeJS.Timeout | undefined;

  const dropped = (subject: string, error: unknown) => {
    log.warn({ err: error, subject }, 'game state does not match its contract; dropped');
    options.onResult?.(subject, 'invalid');
  };

  const accept = (raw: Uint8Array, subject: string): boolean => {
    let envelope: unknown;
    try {
      envelope = JSON.parse(decoder.decode(raw));
    } catch (error) {
      dropped(subject, error);
      return false;
    }
    const state = (envelope as { data?: unknown } | null)?.data;
    if (!looksLikeState(state)) {
      dropped(subject, new Error('not a game state'));
      return false;
    }
    options.onState({
      state,
      check: () => {
        const checked = eventEnvelopeSchema(SUBJECTS.gameState).safeParse(envelope);
        if (checked.success) return checked.data.data;
        dropped(subject, checked.error);
        return undefined;
      },
    });
    options.onResult?.(subject, 'ok');
    return true;
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
