import { describe, expect, it } from 'vitest';
import { notOlder } from './round-state.js';
import type { HotState } from './types.js';

const state = (round: number, globalClicks: number): HotState => ({
  round,
  globalClicks,
  potCents: 0,
  lastClickUser: null,
  lastWinner: null,
});

describe('the last state kept for reads while Redis stalls', () => {
  it('is replaced by a newer one only: a slow read arriving after later clicks does not put it back', () => {
    expect(notOlder(state(2, 300), state(2, 31))).toBe(true);
    expect(notOlder(state(2, 31), state(2, 300))).toBe(false);
    expect(notOlder(state(3, 0), state(2, 300))).toBe(true);
    expect(notOlder(state(2, 999), state(3, 0))).toBe(false);
    // The same count with a new pot (a purchase credited) replaces it.
    expect(notOlder(state(2, 31), state(2, 31))).toBe(true);
  });
});
