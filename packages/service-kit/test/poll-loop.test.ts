// The background loop's idle(): resolved only once the loop sleeps, so a caller that drained the work
// knows no pass queued by a nudge is still to run.
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { startPollLoop } from '../src/poll-loop.js';

const log = pino({ level: 'silent' });

describe('a poll loop', () => {
  it('is idle only after the pass a nudge queued during another pass has run', async () => {
    let passes = 0;
    let release: () => void = () => undefined;
    const loop = startPollLoop(
      async () => {
        passes += 1;
        // The first pass waits for the test; the others end at once.
        if (passes === 1) await new Promise<void>((r) => (release = r));
        return false;
      },
      { intervalMs: 600_000, log, failureMessage: 'failed' },
    );
    await new Promise((r) => setTimeout(r, 10));
    // A nudge while the first pass runs queues a second one.
    loop.nudge();
    let idle = false;
    const idled = loop.idle().then(() => (idle = true));
    await new Promise((r) => setTimeout(r, 10));
    expect(idle).toBe(false);
    release();
    await idled;
    expect(passes).toBe(2);
    await loop.stop();
  });

  it('is idle at once while it sleeps, and after it stopped', async () => {
    const loop = startPollLoop(async () => false, { intervalMs: 600_000, log, failureMessage: 'failed' });
    await loop.idle();
    await loop.stop();
    await loop.idle();
  });
});
