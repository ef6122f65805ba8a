// The pace over every shape of the game's publications: on the grid from one instance or several, late,
// off the grid at any rate, a straggler after its slot's state went out, a lone click after a quiet spell.
// The clock is vitest's, so each case is the same on any machine.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { LATE_TICK_AT, startStatePace, type StatePace } from './state-pace.js';

const PERIOD = 100;
const GATHER = 5;

describe('the state pace', () => {
  let pace: StatePace;
  /** What went out: the time and whether a state was in it. */
  let sent: { at: number; state: boolean }[];
  /** A newer state is waiting to go out. */
  let pending: boolean;
  let countTicks: number;

  const arrive = () => {
    pending = true;
    pace.arrived();
  };
  const stateTimes = () => sent.filter((s) => s.state).map((s) => s.at);

  beforeEach(() => {
    vi.useFakeTimers({ now: 1_000_000 });
    sent = [];
    pending = false;
    countTicks = 0;
    pace = startStatePace({
      periodMs: PERIOD,
      gatherMs: GATHER,
      clock: () => Date.now(),
      tick: (withState) => {
        countTicks += 1;
        const state = withState && pending;
        if (state) pending = false;
        sent.push({ at: Date.now(), state });
        return state;
      },
    });
  });
  afterEach(() => {
    pace.stop();
    vi.useRealTimers();
  });

  /** Runs the clock to `at` (absolute), calling `arrive` at each of `arrivals` on the way. */
  const runTo = async (at: number, arrivals: number[] = []) => {
    for (const t of [...arrivals].sort((a, b) => a - b)) {
      await vi.advanceTimersByTimeAsync(t - Date.now());
      arrive();
    }
    await vi.advanceTimersByTimeAsync(at - Date.now());
  };

  it('sends a state published on the grid as it arrives, with the other instances’ of the same moment', async () => {
    const grid = [1_000_100, 1_000_200, 1_000_300];
    // Three game instances, their publications a millisecond or two apart.
    await runTo(
      1_000_350,
      grid.flatMap((g) => [g + 1, g + 2, g + 3]),
    );
    expect(stateTimes()).toEqual(grid.map((g) => g + 1 + GATHER));
    expect(pending).toBe(false);
  });

  it('sends at most one state a slot, however often states arrive off the grid', async () => {
    const arrivals = Array.from({ length: 500 }, (_, i) => 1_000_000 + i * 2 + 1);
    await runTo(1_001_000, arrivals);
    const times = stateTimes();
    const slots = times.map((t) => Math.floor((t - GATHER + PERIOD / 2) / PERIOD));
    expect(new Set(slots).size).toBe(slots.length);
    expect(times.length).toBeGreaterThanOrEqual(9);
    expect(times.length).toBeLessThanOrEqual(11);
  });

  it('holds a state that comes after its slot’s went out for the next slot, then sends it late in that slot if nothing newer came', async () => {
    await runTo(1_000_150, [1_000_101, 1_000_130]);
    expect(stateTimes()).toEqual([1_000_101 + GATHER]);
    expect(pending).toBe(true);
    await runTo(1_000_300);
    // Nothing published at 1_000_200: the late tick of that slot sends the straggler.
    expect(stateTimes()).toEqual([1_000_101 + GATHER, 1_000_200 + LATE_TICK_AT * PERIOD]);
  });

  it('sends a straggler with the next slot’s state when the game publishes again', async () => {
    await runTo(1_000_250, [1_000_101, 1_000_130, 1_000_202]);
    expect(stateTimes()).toEqual([1_000_101 + GATHER, 1_000_202 + GATHER]);
    expect(pending).toBe(false);
  });

  it('sends a publication that is late by up to the late tick as it arrives', async () => {
    await runTo(1_000_200, [1_000_135]);
    expect(stateTimes()).toEqual([1_000_135 + GATHER]);
  });

  it('ticks for the user count every period when no state comes', async () => {
    await runTo(1_001_000);
    expect(stateTimes()).toEqual([]);
    expect(countTicks).toBe(10);
  });

  it('sends nothing after it stopped', async () => {
    pace.stop();
    await runTo(1_000_500, [1_000_101]);
    expect(sent).toEqual([]);
  });
});
