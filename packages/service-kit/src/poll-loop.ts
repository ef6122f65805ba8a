// A background loop that runs one pass of work, then sleeps until its interval passes or it is nudged; a
// pass that reports more work waiting runs again at once. The outbox relay and the game's journal
// flusher are such loops. A failing pass is logged and retried at the next tick, never thrown.
import type { Logger } from 'pino';

export interface PollLoop {
  /** Run the next pass now rather than at the next tick. */
  nudge(): void;
  /** Resolves once the pass under way (if any) has finished and no other will start. */
  stop(): Promise<void>;
  /** Resolves once the loop sleeps: no pass under way and none due before the interval or a nudge. */
  idle(): Promise<void>;
}

export interface PollLoopOptions {
  intervalMs: number;
  log: Logger;
  /** The warning logged when a pass throws (it is retried at the next tick). */
  failureMessage: string;
}

/** Starts the loop; `pass` returns true when more work is waiting, so the next pass runs without a pause. */
export function startPollLoop(pass: () => Promise<boolean>, options: PollLoopOptions): PollLoop {
  let stopped = false;
  let wake: (() => void) | undefined;
  /** A nudge that came while a pass was running: the next pass follows at once. */
  let nudged = false;
  let sleeping = false;
  const idlers: (() => void)[] = [];

  const pause = () =>
    new Promise<void>((resolve) => {
      sleeping = true;
      for (const idle of idlers.splice(0)) idle();
      // Awake from the moment the timer fires or a nudge comes, not a turn later: idle() is exact.
      const end = () => {
        sleeping = false;
        wake = undefined;
        resolve();
      };
      const timer = setTimeout(end, options.intervalMs);
      wake = () => {
        clearTimeout(timer);
        end();
      };
    });

  const run = async () => {
    while (!stopped) {
      let more = false;
      nudged = false;
      try {
        more = await pass();
      } catch (error) {
        options.log.warn({ err: error }, options.failureMessage);
      }
      if (!more && !nudged && !stopped) await pause();
    }
  };
  const running = run().finally(() => {
    for (const idle of idlers.splice(0)) idle();
  });

  return {
    nudge() {
      nudged = true;
      wake?.();
    },
    async stop() {
      stopped = true;
      wake?.();
      await running;
    },
    idle() {
      if (sleeping || stopped) return Promise.resolve();
      return new Promise<void>((resolve) => idlers.push(resolve));
    },
  };
}
