// The journal's growth in Redis is bounded: while Postgres does not take it (an outage), clicks are
// refused with a clear 503 and Retry-After once JOURNAL_MAX_BACKLOG entries wait, instead of filling
// Redis until it refuses every write; they are accepted again as soon as the journal is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness } from './support.js';

describe('the journal backlog bound', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGame({
      name: 'journal-bound',
      env: { JOURNAL_MAX_BACKLOG: '3', JOURNAL_FLUSH_MS: '600000', CLICK_RATE_PER_USER: '100000' },
    });
  });
  afterAll(async () => h?.close());

  it('refuses clicks past the bound with 503 and Retry-After, and takes them again once written', async () => {
    const player = await h.registerUser('superuser');
    // One click at a time: one journal entry each.
    for (let i = 1; i <= 3; i++) expect((await h.click(player)).json()).toMatchObject({ globalClicks: i });

    const refused = await h.click(player);
    expect(refused.statusCode).toBe(503);
    expect(refused.headers['retry-after']).toBe('1');
    expect(refused.json().message).toBe('The game cannot record clicks right now; please try again shortly');
    expect((await h.state()).globalClicks).toBe(3);
    const metrics = await h.app.inject('/metrics');
    expect(metrics.body).toMatch(/^game_journal_backlog_entries\{[^}]*\} 3$/m);

    await h.flushJournal();
    expect((await h.click(player)).json()).toMatchObject({ globalClicks: 4 });
  });
});
