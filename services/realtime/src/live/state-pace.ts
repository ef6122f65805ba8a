// When a state goes out: at most one a slot, as soon as it arrives. The game publishes on the wall clock's
// multiples of the period (STATE_PUBLISH_MS, services/game/src/state/state-publisher.ts), every instance
// at the same moment; the slots are the periods centred on those moments, so a publication a little late
// or early, or a clock a little off, still falls in its own slot. The first state of a slot is sent
// `gatherMs` after it arrives, with whatever the other game instances published meanwhile; a state that
// comes after its slot's went out waits for the next slot. Late in every slot a tick sends what is left if
// the slot had no state (the last clicks before a quiet spell, a game off the grid) and the user count.
// So a process is woken a few times a period whatever the click rate, and a click reaches the screen at
// the first publication after it.

export interface StatePaceOptions {
  periodMs: number;
  /** How long the first state of a slot waits for the other game instances' of the same moment. */
  gatherMs: number;
  /** Wall-clock milliseconds (the game's slots are on the same clock). */
  clock: () => number;
  /** Sends the newest state if `withState` and it changed, and the user count if due; true if a state went out. */
  tick: (withState: boolean) => boolean;
}

export interface StatePace {
  /** A newer state arrived. */
  arrived(): void;
  stop(): void;
}

/** Where in its slot, after the game's moment, the late tick falls (a fraction of the period). */
export const LATE_TICK_AT = 0.4;

export function startStatePace(options: StatePaceOptions): StatePace {
  const { periodMs, gatherMs, clock, tick } = options;
  /** The slot a moment belongs to: slot k is centred on k × period, when the game publishes. */
  const slotOf = (t: number) => Math.floor((t + periodMs / 2) / periodMs);
  let sentSlot = Number.NEGATIVE_INFINITY;
  let gathering: NodeJS.Timeout | undefined;
  let late: NodeJS.Timeout | undefined;
  let stopped = false;

  const sendFor = (slot: number) => {
    if (slot !== sentSlot && tick(true)) sentSlot = slot;
  };

  const scheduleLate = () => {
    const now = clock();
    const at = (Math.floor(now / periodMs - LATE_TICK_AT) + 1 + LATE_TICK_AT) * periodMs;
    late = setTimeout(() => {
      if (stopped) return;
      const slot = slotOf(clock());
      if (slot === sentSlot) tick(false);
      else sendFor(slot);
      scheduleLate();
    }, at - now);
  };
  scheduleLate();

  return {
    arrived() {
      if (stopped || gathering) return;
      const slot = slotOf(clock());
      if (slot === sentSlot) return;
      gathering = setTimeout(() => {
        gathering = undefined;
        if (!stopped) sendFor(slot);
      }, gatherMs);
    },
    stop() {
      stopped = true;
      clearTimeout(gathering);
      clearTimeout(late);
    },
  };
}
