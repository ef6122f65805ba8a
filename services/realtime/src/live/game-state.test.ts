import { describe, expect, it } from 'vitest';
import { LatestState, stateView, supersedes, type GameStateEvent } from './game-state.js';

const base: GameStateEvent = {
  round: 3,
  globalClicks: 40,
  potCents: 1250,
  lastClickUser: 'alice',
  lastWinner: 'bob',
  at: 1_000_000,
};
const at = (changes: Partial<GameStateEvent>): GameStateEvent => ({ ...base, ...changes });

describe('which state wins', () => {
  it('takes a higher counter or a later round, and drops a lower counter of the same round', () => {
    expect(supersedes(undefined, base)).toBe(true);
    expect(supersedes(base, at({ globalClicks: 41 }))).toBe(true);
    expect(supersedes(base, at({ globalClicks: 39, at: base.at + 10 }))).toBe(false);
    expect(supersedes(base, at({ round: 4, globalClicks: 0 }))).toBe(true);
    expect(supersedes(base, at({ round: 2, globalClicks: 900, at: base.at + 100 }))).toBe(false);
  });

  it('takes a newer state at the same counter only when it shows something new', () => {
    expect(supersedes(base, at({ potCents: 1300, at: base.at + 5 }))).toBe(true);
    expect(supersedes(base, at({ at: base.at + 5 }))).toBe(false);
    expect(supersedes(base, at({ potCents: 1300, at: base.at - 5 }))).toBe(false);
  });

  it('believes a lower round only when it is clearly newer (the game was reset)', () => {
    expect(supersedes(base, at({ round: 1, globalClicks: 0, at: base.at + 60_000 }))).toBe(true);
  });
});

describe('views', () => {
  it('shows euros and the names, the same to everyone', () => {
    expect(stateView(base)).toEqual({
      globalClicks: 40,
      pot: 12.5,
      lastClickUser: 'alice',
      lastWinner: 'bob',
    });
  });
});

describe('LatestState', () => {
  it('hands out each change once, and nothing when nothing changed', () => {
    const latest = new LatestState();
    expect(latest.takeChanged()).toBeUndefined();
    latest.offer(base);
    latest.offer(at({ globalClicks: 41 }));
    latest.offer(at({ globalClicks: 39 }));
    expect(latest.takeChanged()?.globalClicks).toBe(41);
    expect(latest.takeChanged()).toBeUndefined();
  });
});

describe('LatestState, states offered before their contract is checked', () => {
  const unchecked = (state: GameStateEvent, checked: string[], valid = true) => ({
    state,
    check: () => {
      checked.push(`${state.globalClicks}`);
      return valid ? state : undefined;
    },
  });

  it('checks only the state it uses: one superseded before the tick costs no check', () => {
    const latest = new LatestState();
    const checked: string[] = [];
    for (let clicks = 41; clicks <= 50; clicks++)
      latest.offerUnchecked(unchecked(at({ globalClicks: clicks }), checked));
    latest.offerUnchecked(unchecked(at({ globalClicks: 45 }), checked));
    expect(latest.takeChanged()?.globalClicks).toBe(50);
    expect(checked).toEqual(['50']);
    expect(latest.current?.globalClicks).toBe(50);
    expect(checked).toEqual(['50']);
  });

  it('never sends a state that fails its contract, and keeps the last one that held', () => {
    const latest = new LatestState();
    const checked: string[] = [];
    latest.offerUnchecked(unchecked(base, checked));
    expect(latest.takeChanged()?.globalClicks).toBe(40);
    latest.offerUnchecked(unchecked(at({ globalClicks: 41 }), checked, false));
    expect(latest.takeChanged()).toBeUndefined();
    expect(latest.current?.globalClicks).toBe(40);
    latest.offerUnchecked(unchecked(at({ globalClicks: 42 }), checked));
    expect(latest.takeChanged()?.globalClicks).toBe(42);
  });
});
