import { describe, expect, it } from 'vitest';
import { ROUTES, SUBJECTS, makeEvent, parseEvent } from '../src/index.js';

describe('events', () => {
  it('round-trips an event through its subject schema', () => {
    const event = makeEvent(SUBJECTS.roundWon, {
      round: 3,
      winnerUserId: '7d2c1d0e-3c53-4a5e-9f43-2b1b1f3b8c11',
      winnerUsername: 'ana',
      potCents: 1250,
      clicks: 100,
      wonAt: new Date().toISOString(),
    });
    expect(parseEvent(SUBJECTS.roundWon, JSON.stringify(event))).toEqual(event);
  });

  it('refuses a payload that does not match its subject', () => {
    const event = makeEvent(SUBJECTS.userDeleted, { userId: '7d2c1d0e-3c53-4a5e-9f43-2b1b1f3b8c11' });
    expect(() =>
      parseEvent(SUBJECTS.userRenamed, JSON.stringify({ ...event, subject: SUBJECTS.userRenamed })),
    ).toThrow();
    expect(() => makeEvent(SUBJECTS.purchaseCompleted, { purchaseId: 'x' } as never)).toThrow();
  });

  it('lists every public route once', () => {
    const keys = ROUTES.map((r) => `${r.method} ${r.path}`);
    expect(new Set(keys).size).toBe(keys.length);
  });
});
