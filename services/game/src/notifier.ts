// A signal one part of the game gives and another listens to: the engine tells of a changed round
// state or a win written, and the loops start() runs (the state publisher, the outbox relay) listen
// while they run. Created before both and handed to both; a signal nobody listens to is dropped (a
// loop that starts reads what it needs by itself: the publisher sends the whole state first).
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
