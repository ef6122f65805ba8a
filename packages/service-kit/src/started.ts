// What a service's start() returns: a handle on the loops it started (outbox relays, consumers, timers),
// with the operations that need them running and the one function that stops them, in the service's
// order. The handle is made whole by start() and never filled in afterwards. Its owner stops it after
// closing the app (runService does on SIGTERM; a test in its clean-up), so the listeners close and the
// requests in flight are answered before the loops and services they use stop.

export interface Started {
  /** Stops what start() started; a second call waits for the first. */
  stop(): Promise<void>;
}

/** `parts` with a stop() that runs `stop` once, however many ask. */
export function startedHandle<T extends object>(parts: T, stop: () => Promise<void>): T & Started {
  let stopping: Promise<void> | undefined;
  return { ...parts, stop: () => (stopping ??= stop()) };
}
