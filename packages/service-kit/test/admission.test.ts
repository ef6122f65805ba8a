// The admission rule on a clock the test moves: a burst waits its turn and is served whole, however
// long the queue is while it drains; only a path that had no room for a whole interval sheds, and then
// only what waited longer than the target; the limit is the same after a burst as before.
import { describe, expect, it } from 'vitest';
import { Admission, type Leave } from '../src/admission.js';

const TARGET = 20;
const INTERVAL = 500;

function harness(options: { maxInFlight: number; maxQueue?: number; loopClock?: boolean }) {
  let now = 0;
  /** How late requests arriving now were read (the event loop's lag). */
  let lag = 0;
  /** Since when the loop has run later than the target (it kept time until then). */
  let lateSince = 0;
  const admission = new Admission({
    maxInFlight: options.maxInFlight,
    maxQueue: options.maxQueue ?? 10_000,
    targetMs: TARGET,
    intervalMs: INTERVAL,
    priorDelay: () => lag,
    // As loop-lag.ts reports it: now while the loop keeps time, else when it last did.
    onTimeAt: options.loopClock === false ? undefined : () => (lag <= TARGET ? now : lateSince),
    now: () => now,
    every: () => () => undefined,
  });
  const running: Leave[] = [];
  const counts = { admitted: 0, refused: 0 };
  return {
    admission,
    running,
    counts,
    advance(ms: number) {
      now += ms;
      admission.check();
    },
    /** Time passes with nothing waiting: the admission's own check does not run (its timer is off). */
    idle(ms: number) {
      now += ms;
    },
    lagging(ms: number) {
      if (ms > TARGET && lag <= TARGET) lateSince = now;
      lag = ms;
    },
    arrive(n: number) {
      for (let i = 0; i < n; i++)
        admission.enter(
          (leave) => {
            counts.admitted += 1;
            running.push(leave);
          },
          () => (counts.refused += 1),
        );
    },
    /** `n` running requests finish. */
    finish(n: number) {
      for (const leave of running.splice(0, n)) leave();
    },
  };
}

/** Serves `perStep` requests every `stepMs` until nothing runs or waits. */
function drain(h: ReturnType<typeof harness>, perStep: number, stepMs: number) {
  for (let i = 0; i < 10_000 && (h.running.length > 0 || h.admission.stats().queued > 0); i++) {
    h.advance(stepMs);
    h.finish(perStep);
  }
}

describe('admission (CoDel over the wait for a turn)', () => {
  it('serves a burst far larger than the limit whole, however long it waits while it drains', () => {
    const h = harness({ maxInFlight: 25 });
    h.arrive(1000);
    expect(h.counts.admitted).toBe(25);
    // 25 served every 10 ms: the last waits about 400 ms, under one interval.
    drain(h, 25, 10);
    expect(h.counts).toEqual({ admitted: 1000, refused: 0 });
  });

  it('serves burst after burst alike: nothing of one is held against the next', () => {
    const h = harness({ maxInFlight: 16 });
    for (let burst = 0; burst < 5; burst++) {
      h.arrive(300);
      drain(h, 10, 10);
      h.advance(1000);
    }
    expect(h.counts).toEqual({ admitted: 1500, refused: 0 });
    expect(h.admission.stats()).toMatchObject({ inFlight: 0, queued: 0, overloaded: false });
  });

  it('sheds under sustained overload, only what waited past the target, and keeps the path busy', () => {
    const h = harness({ maxInFlight: 10 });
    // Arrivals at three times the service rate (30 per 10 ms against 10 served) for 3 s.
    for (let step = 0; step < 300; step++) {
      h.arrive(30);
      h.advance(10);
      h.finish(10);
    }
    expect(h.counts.refused).toBeGreaterThan(0);
    expect(h.admission.stats().overloaded).toBe(true);
    // Goodput stays at the service rate: the path never starved.
    expect(h.counts.admitted).toBeGreaterThanOrEqual(299 * 10);
    // What waits is about a target's worth, not an interval's.
    expect(h.admission.stats().queued).toBeLessThanOrEqual(30 * (TARGET / 10 + 1));
  });

  it('refuses nothing while waits stay above the target for less than an interval', () => {
    const h = harness({ maxInFlight: 10 });
    h.arrive(200);
    // Served 10 every 20 ms: 400 ms to drain, every wait above the target meanwhile.
    drain(h, 10, 20);
    expect(h.counts).toEqual({ admitted: 200, refused: 0 });
  });

  it('stops shedding once the queue drains, and serves the next burst whole', () => {
    const h = harness({ maxInFlight: 10 });
    for (let step = 0; step < 200; step++) {
      h.arrive(30);
      h.advance(10);
      h.finish(10);
    }
    drain(h, 10, 10);
    const refusedInOverload = h.counts.refused;
    expect(refusedInOverload).toBeGreaterThan(0);
    h.advance(1000);
    h.arrive(300);
    drain(h, 25, 10);
    expect(h.counts.refused).toBe(refusedInOverload);
  });

  it('refuses what waits behind a path that stopped answering, once it had no room for an interval', () => {
    const h = harness({ maxInFlight: 4 });
    h.arrive(20);
    h.advance(INTERVAL - 1);
    expect(h.counts.refused).toBe(0);
    h.advance(1);
    expect(h.counts).toEqual({ admitted: 4, refused: 16 });
    // Still no room: what comes next is refused once it waited past the target, not a whole interval.
    h.arrive(1);
    h.advance(TARGET);
    expect(h.counts.refused).toBe(16);
    h.advance(1);
    expect(h.counts.refused).toBe(17);
  });

  it('counts the wait before a request was read: a process short of CPU sheds at the door once that stood for an interval', () => {
    const h = harness({ maxInFlight: 100 });
    // The loop runs 3 targets late; the path itself always has room (everything finishes at once).
    h.lagging(3 * TARGET);
    for (let step = 0; step < 100; step++) {
      h.arrive(10);
      h.finish(10);
      h.advance(10);
    }
    // Nothing refused for the first interval, then every late arrival refused at once.
    expect(h.counts.admitted).toBe((INTERVAL / 10) * 10);
    expect(h.counts.refused).toBe(1000 - (INTERVAL / 10) * 10);
    expect(h.admission.stats().overloaded).toBe(true);
    // The loop keeps time again: the next arrival is served and the path has room at once.
    h.lagging(0);
    h.arrive(10);
    expect(h.counts.admitted).toBe((INTERVAL / 10) * 10 + 10);
    expect(h.admission.stats().overloaded).toBe(false);
  });

  it('serves a request read late after a quiet spell: the loop kept time until a moment before', () => {
    const h = harness({ maxInFlight: 100 });
    h.idle(10 * INTERVAL);
    h.lagging(3 * TARGET);
    h.arrive(1);
    expect(h.counts).toEqual({ admitted: 1, refused: 0 });
    // Told only by arrivals, the quiet spell looked like an interval without room.
    const arrivalsOnly = harness({ maxInFlight: 100, loopClock: false });
    arrivalsOnly.idle(10 * INTERVAL);
    arrivalsOnly.lagging(3 * TARGET);
    arrivalsOnly.arrive(1);
    expect(arrivalsOnly.counts).toEqual({ admitted: 0, refused: 1 });
  });

  it("serves a steady trickle, one request an interval, each meeting a moment's lag", () => {
    const h = harness({ maxInFlight: 100 });
    for (let step = 0; step < 50; step++) {
      h.lagging(0);
      h.idle(INTERVAL);
      h.lagging(3 * TARGET);
      h.arrive(1);
      h.finish(1);
    }
    expect(h.counts).toEqual({ admitted: 50, refused: 0 });
  });

  it('refuses a rare request at the door once the loop has run late for a whole interval', () => {
    const h = harness({ maxInFlight: 100 });
    h.idle(INTERVAL);
    h.lagging(3 * TARGET);
    h.idle(INTERVAL - 1);
    h.arrive(1);
    expect(h.counts).toEqual({ admitted: 1, refused: 0 });
    h.finish(1);
    h.idle(1);
    h.arrive(1);
    expect(h.counts).toEqual({ admitted: 1, refused: 1 });
  });

  it('refuses nothing for a lag that lasts less than an interval, or stays under the target', () => {
    const h = harness({ maxInFlight: 100 });
    h.lagging(3 * TARGET);
    for (let step = 0; step < INTERVAL / 10 - 1; step++) {
      h.arrive(10);
      h.finish(10);
      h.advance(10);
    }
    h.lagging(TARGET);
    for (let step = 0; step < 200; step++) {
      h.arrive(10);
      h.finish(10);
      h.advance(10);
    }
    expect(h.counts.refused).toBe(0);
  });

  it("counts a queued request's wait from when it was read late, not from when it was queued", () => {
    const h = harness({ maxInFlight: 1 });
    h.arrive(1);
    h.advance(INTERVAL);
    // No room for an interval: a request read 3 targets late has waited past the target already.
    h.lagging(3 * TARGET);
    h.arrive(1);
    h.advance(1);
    expect(h.counts.refused).toBe(1);
  });

  it('refuses at once past the queue bound, and forgets a request withdrawn while it waits', () => {
    let now = 0;
    const admission = new Admission({
      maxInFlight: 1,
      maxQueue: 2,
      targetMs: TARGET,
      intervalMs: INTERVAL,
      now: () => now,
      every: () => () => undefined,
    });
    const seen: string[] = [];
    let leaveFirst: Leave = () => undefined;
    admission.enter(
      (leave) => ((leaveFirst = leave), seen.push('a')),
      () => seen.push('a refused'),
    );
    const withdraw = admission.enter(
      () => seen.push('b'),
      () => seen.push('b refused'),
    );
    admission.enter(
      () => seen.push('c'),
      () => seen.push('c refused'),
    );
    admission.enter(
      () => seen.push('d'),
      () => seen.push('d refused'),
    );
    expect(seen).toEqual(['a', 'd refused']);
    withdraw();
    now += 5;
    leaveFirst();
    leaveFirst(); // a second leave does nothing
    expect(seen).toEqual(['a', 'd refused', 'c']);
    expect(admission.stats()).toMatchObject({ inFlight: 1, queued: 0 });
  });

  it('run() gives the work its turn and answers undefined when refused', async () => {
    const h = harness({ maxInFlight: 1, maxQueue: 0 });
    let release: () => void = () => undefined;
    const first = h.admission.run(() => new Promise<string>((r) => (release = () => r('done'))));
    expect(await h.admission.run(async () => 'second')).toBeUndefined();
    release();
    expect(await first).toBe('done');
    expect(await h.admission.run(async () => 'third')).toBe('third');
  });
});

describe("each request's wait, as onDecided reports it", () => {
  it('is 0 for a turn given at once, the time in the queue for a later one, and for a refusal', () => {
    let now = 0;
    const decided: [string, number][] = [];
    const admission = new Admission({
      maxInFlight: 1,
      maxQueue: 1,
      targetMs: TARGET,
      intervalMs: INTERVAL,
      now: () => now,
      every: () => () => undefined,
      onDecided: (outcome, waited) => decided.push([outcome, waited]),
    });
    let leaveFirst: Leave | undefined;
    admission.enter(
      (leave) => (leaveFirst = leave),
      () => undefined,
    );
    admission.enter(
      () => undefined,
      () => undefined,
    );
    // The queue holds one: a third is refused at once.
    admission.enter(
      () => undefined,
      () => undefined,
    );
    now += 30;
    leaveFirst!();
    expect(decided).toEqual([
      ['admitted', 0],
      ['refused', 0],
      ['admitted', 30],
    ]);
  });
});
