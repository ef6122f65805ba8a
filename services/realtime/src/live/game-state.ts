// The latest game state this instance knows, and the rule that keeps a client's counter from going
// backwards: within a round a state is only replaced by one at the same or a higher counter.
import { centsToEuros, type GameState } from '@omc/contracts';
import type { z } from 'zod';
import type { GameStateV1 } from '@omc/contracts';

export type GameStateEvent = z.infer<typeof GameStateV1>;

/** A state from a lower round is only believed when it is this much newer (the game's data was reset). */
const RESET_AFTER_MS = 5_000;

/** True when `next` should replace `current`. */
export function supersedes(current: GameStateEvent | undefined, next: GameStateEvent): boolean {
  if (!current) return true;
  if (next.round !== current.round)
    return next.round > current.round || next.at > current.at + RESET_AFTER_MS;
  if (next.globalClicks !== current.globalClicks) return next.globalClicks > current.globalClicks;
  // Same counter: a purchase may have raised the pot, or the last winner changed; keep the newest.
  return next.at >= current.at && !sameView(current, next);
}

function sameView(a: GameStateEvent, b: GameStateEvent): boolean {
  return a.potCents === b.potCents && a.lastClickUser === b.lastClickUser && a.lastWinner === b.lastWinner;
}

/**
 * The state every socket receives, signed in or not (the client contract, docs/architecture.md; euros at the
 * browser's edge). What a guest may not see is hidden by the interface (docs/client-contract.md).
 */
export function stateView(state: GameStateEvent): GameState {
  return {
    globalClicks: state.globalClicks,
    pot: centsToEuros(state.potCents),
    lastWinner: state.lastWinner,
    lastClickUser: state.lastClickUser,
  };
}

/** A state as it arrived, not yet checked against its contract, and the check (undefined: it failed). */
export interface StateCandidate {
  state: GameStateEvent;
  check: () => GameStateEvent | undefined;
}

/**
 * Holds the newest state and whether it changed since the last broadcast. A period may bring more states
 * than the one sent (one from each game instance, all published at the same moment, and the answers to
 * state requests): a state is checked against its contract only when it is about to be used (a send, a
 * socket connecting), so one superseded before then costs a comparison, not a validation.
 */
export class LatestState {
  private state: GameStateEvent | undefined;
  private candidate: StateCandidate | undefined;
  private version = 0;
  private broadcastVersion = 0;

  get current(): GameStateEvent | undefined {
    this.settle();
    return this.state;
  }

  /** Offers a state not checked yet; returns whether it is the newest so far. */
  offerUnchecked(next: StateCandidate): boolean {
    if (!supersedes(this.candidate?.state ?? this.state, next.state)) return false;
    this.candidate = next;
    return true;
  }

  /** Offers a state; returns whether it was taken. */
  offer(next: GameStateEvent): boolean {
    if (!supersedes(this.state, next)) return false;
    this.state = next;
    this.version += 1;
    return true;
  }

  /** The state to broadcast now, or undefined when nothing changed since the last call. */
  takeChanged(): GameStateEvent | undefined {
    this.settle();
    if (this.version === this.broadcastVersion) return undefined;
    this.broadcastVersion = this.version;
    return this.state;
  }

  /** Checks the newest state offered unchecked and, if it holds, takes it. */
  private settle(): void {
    const candidate = this.candidate;
    if (!candidate) return;
    this.candidate = undefined;
    const checked = candidate.check();
    if (checked) this.offer(checked);
  }
}
