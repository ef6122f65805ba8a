// Admission control for a hot path that tells a burst from overload. At most `maxInFlight` requests
// run at once; the rest wait in a FIFO queue, so a burst the path clears within `intervalMs` is served
// whole. Shedding follows CoDel (Nichols and Jacobson) as servers use it (Facebook's "Fail at Scale"):
// the queue is standing when the path has had no room (a free turn with nobody waiting) for a whole
// `intervalMs`; then, and only then, the requests that have waited longer than `targetMs` are refused,
// which cuts the queue back to about `targetMs` of work while the path stays busy. The limit itself
// never moves, so nothing that happened in a burst is held against the next one. `maxQueue` bounds the
// memory: past it a request is refused at once.
//
// A request's wait counts from before the admission saw it when `priorDelay` says how late it was read
// (the event loop's lag, loop-lag.ts): a process short of CPU, whose requests wait in the kernel rather
// than in this queue, has no room either, and once that has stood for an interval a request that
// arrives later than the target is refused at the door, where a refusal costs least. "Has stood" is
// judged by the loop itself when `onTimeAt` says when it last kept time: a request read late after a
// quiet spell, or one of a steady trickle that met a moment's lag, finds a loop that kept time until
// then, and is served.

import { STAGE_BUCKETS, type Metrics } from './metrics.js';

export interface AdmissionOptions {
  /** Requests running at once at most; the rest wait. */
  maxInFlight: number;
  /** Requests waiting at most; past it a request is refused at once. */
  maxQueue: number;
  /** CoDel's target: the wait a standing queue is cut back to (ms). */
  targetMs: number;
  /** CoDel's interval: how long the path must have had no room before anything is refused (ms). */
  intervalMs: number;
  /** How long a request arriving now has already waited before the admission saw it (ms); 0 if absent. */
  priorDelay?: () => number;
  /**
   * The last moment the event loop kept time, within `targetMs` (loop-lag.ts `onTimeAt`): a late read
   * is an overload only once the loop has been late for a whole `intervalMs`. Without it, only requests'
   * arrivals tell, so a quiet spell counts as late.
   */
  onTimeAt?: () => number;
  now?: () => number;
  /**
   * Each request's wait from its arrival (less any `priorDelay`) to its turn or its refusal, in ms:
   * the admission's stage of a request's latency (docs/performance.md, "The latency budget").
   */
  onDecided?: (outcome: 'admitted' | 'refused', waitedMs: number) => void;
  /** Runs `check` every `ms` while requests wait (a test drives `check` itself); returns a stopper. */
  every?: (ms: number, check: () => void) => () => void;
}

export interface AdmissionStats {
  /** Requests let run at once (fixed: `maxInFlight`). */
  limit: number;
  inFlight: number;
  queued: number;
  admitted: number;
  refused: number;
  /** Whether the queue is standing (overloaded) now. */
  overloaded: boolean;
}

/** Ends an admitted request's turn (answered, failed or abandoned); a second call does nothing. */
export type Leave = () => void;

interface Waiter {
  /** When it arrived, less its prior delay. */
  at: number;
  admit: (leave: Leave) => void;
  refuse: () => void;
  gone: boolean;
}

/** Admission's `onDecided` as the histogram `name`, by outcome (admitted, refused), in seconds. */
export function admissionWaits(metrics: Metrics, name: string, help: string): AdmissionOptions['onDecided'] {
  const waits = metrics.histogram(name, help, ['outcome'], STAGE_BUCKETS);
  return (outcome, waitedMs) => waits.observe({ outcome }, Math.max(0, waitedMs) / 1000);
}

const realEvery = (ms: number, check: () => void) => {
  const timer = setInterval(check, ms);
  timer.unref();
  return () => clearInterval(timer);
};

export class Admission {
  private readonly queue: Waiter[] = [];
  private head = 0;
  private inFlightNow = 0;
  /** The last time the path had room: a free turn and nobody waiting. */
  private roomAt: number;
  private stopTimer: (() => void) | undefined;
  private admittedTotal = 0;
  private refusedTotal = 0;
  private readonly now: () => number;
  private readonly every: NonNullable<AdmissionOptions['every']>;

  constructor(private readonly options: AdmissionOptions) {
    this.now = options.now ?? (() => performance.now());
    this.every = options.every ?? realEvery;
    this.roomAt = this.now();
  }

  /**
   * Asks for a turn: `admit` is called (now or once the request's turn comes) with the function that
   * ends it, or `refuse` (now or after a wait). The returned function withdraws a waiting request
   * (its client went away); after `admit` it does nothing.
   */
  enter(admit: (leave: Leave) => void, refuse: () => void): () => void {
    const now = this.now();
    const prior = this.priorDelay();
    if (this.inFlightNow < this.options.maxInFlight && this.waiting() === 0) {
      if (prior <= this.options.targetMs) this.roomAt = now;
      else if (this.overloaded(now)) return this.refuseNow(refuse, prior);
      this.start(admit, prior);
      return () => undefined;
    }
    if (this.waiting() >= this.options.maxQueue) return this.refuseNow(refuse, prior);
    const waiter: Waiter = { at: now - prior, admit, refuse, gone: false };
    this.queue.push(waiter);
    this.stopTimer ??= this.every(Math.max(1, Math.ceil(this.options.targetMs / 2)), () => this.check());
    return () => {
      waiter.gone = true;
    };
  }

  /** Runs `work` in its turn; undefined when the request was refused. */
  run<T>(work: () => Promise<T>): Promise<T | undefined> {
    return new Promise<T | undefined>((resolve, reject) => {
      this.enter(
        (leave) => {
          Promise.resolve()
            .then(work)
            .then(
              (value) => {
                leave();
                resolve(value);
              },
              (error: unknown) => {
                leave();
                reject(error);
              },
            );
        },
        () => resolve(undefined),
      );
    });
  }

  /** Refuses what has waited too long in an overloaded queue, then lets waiting requests in. */
  check(): void {
    const now = this.now();
    this.dropGone();
    while (
      this.waiting() > 0 &&
      this.overloaded(now) &&
      now - this.queue[this.head]!.at > this.options.targetMs
    ) {
      this.refuseHead();
      this.dropGone();
    }
    while (this.inFlightNow < this.options.maxInFlight && this.waiting() > 0) {
      const waiter = this.queue[this.head]!;
      this.shift();
      this.start(waiter.admit, now - waiter.at);
      this.dropGone();
    }
    if (this.waiting() === 0) {
      if (this.inFlightNow < this.options.maxInFlight && this.priorDelay() <= this.options.targetMs)
        this.roomAt = now;
      this.stopTimer?.();
      this.stopTimer = undefined;
    }
  }

  stats(): AdmissionStats {
    return {
      limit: this.options.maxInFlight,
      inFlight: this.inFlightNow,
      queued: this.waiting(),
      admitted: this.admittedTotal,
      refused: this.refusedTotal,
      overloaded: this.overloaded(this.now()),
    };
  }

  /** Seconds a refused client should wait: the shortest whole second HTTP's Retry-After can say. */
  retryAfterSeconds(): number {
    return 1;
  }

  /** Refuses every waiting request (the server is closing). */
  close(): void {
    while (this.waiting() > 0) this.refuseHead();
    this.stopTimer?.();
    this.stopTimer = undefined;
  }

  private overloaded(now: number): boolean {
    const room = this.inFlightNow < this.options.maxInFlight && this.waiting() === 0;
    if (room) {
      if (this.priorDelay() <= this.options.targetMs) return false;
      // Room for the request, read late: an overload only if the loop has run late for an interval.
      const onTime = Math.max(this.roomAt, this.options.onTimeAt?.() ?? Number.NEGATIVE_INFINITY);
      return now - onTime >= this.options.intervalMs;
    }
    return now - this.roomAt >= this.options.intervalMs;
  }

  private priorDelay(): number {
    return this.options.priorDelay?.() ?? 0;
  }

  private refuseNow(refuse: () => void, waitedMs: number): () => void {
    this.refusedTotal += 1;
    this.options.onDecided?.('refused', waitedMs);
    refuse();
    return () => undefined;
  }

  private start(admit: (leave: Leave) => void, waitedMs: number): void {
    this.inFlightNow += 1;
    this.admittedTotal += 1;
    this.options.onDecided?.('admitted', waitedMs);
    let left = false;
    admit(() => {
      if (left) return;
      left = true;
      this.inFlightNow -= 1;
      if (this.waiting() > 0) this.check();
    });
  }

  private refuseHead(): void {
    const waiter = this.queue[this.head]!;
    this.shift();
    if (waiter.gone) return;
    this.refusedTotal += 1;
    this.options.onDecided?.('refused', this.now() - waiter.at);
    waiter.refuse();
  }

  private dropGone(): void {
    while (this.waiting() > 0 && this.queue[this.head]!.gone) this.shift();
  }

  private waiting(): number {
    return this.queue.length - this.head;
  }

  /** Removes the head; the array is compacted once half of it is spent. */
  private shift(): void {
    this.head += 1;
    if (this.head > 1024 && this.head * 2 > this.queue.length) {
      this.queue.splice(0, this.head);
      this.head = 0;
    }
  }
}
