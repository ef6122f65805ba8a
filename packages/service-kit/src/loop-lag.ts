// How late this process's event loop runs now: the wait a request met before any code of ours saw it.
// A process short of CPU reads requests late (they wait in the kernel while the loop works through the
// ones before), and a queue that only counts from the moment a request is read never looks standing.
// A timer every `intervalMs` measures how late it fires; `now()` is that lateness, or, in the middle of
// a long turn of the loop, how long the timer is overdue already, whichever is larger. `onTimeAt()` is
// the last moment the loop was found keeping time (within `onTimeWithinMs`): a loop late at one moment
// after keeping time until then had a spike, not a shortage of CPU.

export interface LoopLag {
  /** The event loop's lateness now, in ms (0 when it keeps time). */
  now(): number;
  /** The last moment (on `clock`) the loop ran within `onTimeWithinMs` of time: now while it does. */
  onTimeAt(): number;
  stop(): void;
}

export function watchLoopLag(
  intervalMs = 10,
  clock: () => number = () => performance.now(),
  onTimeWithinMs = 0,
): LoopLag {
  let last = 0;
  let due = clock() + intervalMs;
  let onTimeAt = clock();
  const timer = setInterval(() => {
    const at = clock();
    last = Math.max(0, at - due);
    if (last <= onTimeWithinMs) onTimeAt = at;
    due = at + intervalMs;
  }, intervalMs);
  timer.unref();
  return {
    now: () => Math.max(last, clock() - due),
    onTimeAt: () => {
      const at = clock();
      return last <= onTimeWithinMs && at - due <= onTimeWithinMs ? at : onTimeAt;
    },
    stop: () => clearInterval(timer),
  };
}
