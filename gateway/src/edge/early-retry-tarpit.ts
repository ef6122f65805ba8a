// An early retry's refusal is held a while before it goes (a tarpit): a client that resends the moment
// it is answered then costs a timer per connection, not thousands of refusals a second that take the
// event loop from the players who wait. Bounded: past `maxHeld` held answers, the next ones go at once.
import type { ServerResponse } from 'node:http';

export class Tarpit {
  /** Held answers, each sent when its time comes (or at once on close). */
  private readonly held = new Set<() => void>();

  constructor(private readonly options: { delayMs: number; maxHeld: number }) {}

  /** Sends `answer` on `res` after at most `delayMs` (never later than `limitMs`), or at once. */
  hold(res: ServerResponse, limitMs: number, answer: () => void): void {
    const send = () => {
      this.held.delete(send);
      answer();
    };
    const wait = Math.min(this.options.delayMs, limitMs);
    if (wait <= 0 || this.held.size >= this.options.maxHeld) return send();
    this.held.add(send);
    const timer = setTimeout(send, wait);
    res.once('close', () => {
      this.held.delete(send);
      clearTimeout(timer);
    });
  }

  /** Sends every held answer now (the server is closing). */
  close(): void {
    for (const send of [...this.held]) send();
  }
}
