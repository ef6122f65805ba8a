// An instance stopped as its process is on SIGTERM (runService: the app closes, then the handle start()
// returned stops its loops, the services, then drains the journal) leaves nothing of its clicks only in
// Redis: every click it accepted is in Postgres, though its flusher's interval never came round.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGame, type Harness } from './support.js';

describe('stopping an instance', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startGame({
      name: 'shutdown',
      instances: 2,
      env: { JOURNAL_FLUSH_MS: '600000', CLICK_RATE_PER_USER: '100000' },
    });
  });
  afterAll(async () => h?.close());

  it('writes every click it accepted to Postgres before it is gone', async () => {
    const player = await h.registerUser('superuser');
    const leaving = h.apps[1]!;
    const db = h.apps[0]!.game.deps.db;
    const recorded = async () =>
      Number(
        (
          await sql<{ clicks: number }>`SELECT coalesce(sum(clicks), 0)::int AS clicks FROM rounds`.execute(
            db,
          )
        ).rows[0]!.clicks,
      );
    const before = await recorded();
    const answers = await h.clickTimes(player, 30, 10, leaving);
    const accepted = answers.filter((a) => a.statusCode === 200).length;
    expect(accepted).toBe(30);
    // Not yet written: the flusher's interval (10 minutes) has not come round.
    expect(await recorded()).toBe(before);

    await h.stopInstance(leaving);
    expect(await recorded()).toBe(before + accepted);
    // The instance left running goes on from there.
    expect((await h.click(player)).json()).toMatchObject({ globalClicks: before + accepted + 1 });
  });
});
