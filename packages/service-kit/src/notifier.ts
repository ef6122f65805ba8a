// A signal one part of a service gives and another listens to: a service tells of a changed round state
// or of events written to the outbox, and the loops start() runs (a state publisher, the outbox relay)
// listen while they run. Created before both and handed to both, so nothing is filled in later; a signal
// nobody listens to is dropped (a loop that starts reads what it needs by itself).
export class Notifier<Args extends unknown[] = []> {
  private readonly listeners = new Set<(...args: Args) => void>();

  notify(...args: Args): void {
    for (const listener of this.listeners) listener(...args);
  }

  /** Calls `listener` on every signal from now on; returns what stops it. */
  listen(listener: (...args: Args) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}
