// Admission control for a hot path: at most `limit` requests in flight, the rest refused at once (the
// caller answers 503 with Retry-After) instead of queued. The limit adapts to the machine by a latency
// target, not a fixed count: every window (100 ms), if more than a tenth of the requests that finished
// took longer than the target, or the event loop itself ran late by more than the target (p99), the
// limit shrinks to three quarters of what was in flight (never below a floor); if the window was
// healthy and the limit was what held requests back, it grows by a quarter. Little's law does the rest: a limit that keeps latency at the target keeps the throughput the
// machine has, and what is refused costs a few microseconds instead of everyone's latency.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** Latency says "too slow" only over at least this many requests in a window. */
const MIN_SAMPLES = 5;

export interface AdmissionOptions {
  /** Latency an admitted request should stay under (ms). */
  targetMs: number;
  /** The hard bound: never more in flight than this, whatever the latency says. */
  maxInFlight: number;
  /** The floor the limit never goes below (default 32), so a slow spell cannot starve the path. */
  minInFlight?: number;
  /** How often the limit adapts (ms). */
  windowMs?: number;
  /** Also count the event loop's own lateness (p99 over the window) as latency. */
  watchEventLoop?: boolean;
  now?: () => number;
}

export interface AdmissionStats {
  limit: number;
  inFlight: number;
  admitted: number;
  refused: number;
}

export class Admission {
  private limitNow: number;
  private inFlightNow = 0;
  private readonly min: number;
  private readonly windowMs: number;
  private readonly now: () => number;
  private readonly loop: IntervalHistogram | undefined;
  private windowEnds: number;
  private finished = 0;
  private slow = 0;
  private peak = 0;
  private refusedInWindow = 0;
  private admittedTotal = 0;
  private refusedTotal = 0;

  constructor(private readonly options: AdmissionOptions) {
    this.min = Math.max(1, Math.min(options.minInFlight ?? 32, options.maxInFlight));
    this.windowMs = options.windowMs ?? 100;
    this.now = options.now ?? (() => performance.now());
    this.limitNow = options.maxInFlight;
    this.windowEnds = this.now() + this.windowMs;
    if (options.watchEventLoop) {
      this.loop = monitorEventLoopDelay({ resolution: 10 });
      this.loop.enable();
    }
  }

  /** The start time of an admitted request (pass it to `leave`), or undefined: refuse it now. */
  enter(): number | undefined {
    const now = this.now();
    if (now >= this.windowEnds) this.adapt(now);
    if (this.inFlightNow >= this.limitNow) {
      this.refusedInWindow += 1;
      this.refusedTotal += 1;
      return undefined;
    }
    this.inFlightNow += 1;
    this.admittedTotal += 1;
    if (this.inFlightNow > this.peak) this.peak = this.inFlightNow;
    return now;
  }

  /** An admitted request finished (answered, failed or abandoned). */
  leave(startedAt: number): void {
    this.inFlightNow -= 1;
    const now = this.now();
    this.finished += 1;
    if (now - startedAt > this.options.targetMs) this.slow += 1;
    if (now >= this.windowEnds) this.adapt(now);
  }

  /** Seconds a refused client should wait before trying again. */
  retryAfterSeconds(): number {
    return 1;
  }

  stats(): AdmissionStats {
    return {
      limit: this.limitNow,
      inFlight: this.inFlightNow,
      admitted: this.admittedTotal,
      refused: this.refusedTotal,
    };
  }

  close(): void {
    this.loop?.disable();
  }

  private adapt(now: number): void {
    const loopLateMs = this.loop && this.loop.count > 0 ? this.loop.percentile(99) / 1e6 : 0;
    const tooSlow =
      (this.finished >= MIN_SAMPLES && this.slow * 10 > this.finished) || loopLateMs > this.options.targetMs;
    if (tooSlow) {
      // Shrink from what was really in flight: a limit far above the load says nothing about it.
      this.limitNow = Math.max(this.min, Math.floor(Math.min(this.limitNow, this.peak) * 0.75));
    } else if (this.refusedInWindow > 0 || this.peak >= this.limitNow) {
      this.limitNow = Math.min(
        this.options.maxInFlight,
        Math.ceil(this.limitNow + Math.max(1, this.limitNow * 0.25)),
      );
    }
    this.finished = 0;
    this.slow = 0;
    this.peak = this.inFlightNow;
    this.refusedInWindow = 0;
    this.loop?.reset();
    this.windowEnds = now + this.windowMs;
  }
}
