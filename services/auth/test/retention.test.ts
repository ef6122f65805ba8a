// Auth's own retention pass, as the running service does it: published outbox rows (which once held
// events) older than OUTBOX_RETENTION_HOURS and processed-event marks older than
// PROCESSED_EVENTS_RETENTION_DAYS are deleted every RETENTION_INTERVAL_MS; the unpublished and the recent
// stay.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuth, type AuthHarness } from './support.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe("retention of auth's event tables", () => {
  let h: AuthHarness;
  beforeAll(async () => {
    h = await startAuth({ RETENTION_INTERVAL_MS: '1000', OUTBOX_RETENTION_HOURS: '24' });
  });
  afterAll(async () => h?.close());

  it('deletes old published outbox rows and old processed marks while running, and keeps the rest', async () => {
    const db = h.deps.db;
    const ago = (ms: number) => new Date(Date.now() - ms);
    const row = (id: string, publishedAgo: number | null) =>
      sql`insert into outbox (id, subject, payload, created_at, published_at)
          values (${id}, 'auth.user.renamed.v1', '{}'::jsonb, ${ago(3 * DAY)},
                  ${publishedAgo === null ? null : ago(publishedAgo)})`.execute(db);
    await row('retention-old-published', 2 * DAY);
    await row('retention-recent-published', 2 * HOUR);
    await row('retention-old-unpublished', null);
    const mark = (id: string, processedAgo: number) =>
      sql`insert into processed_events (id, subject, processed_at)
          values (${id}, 'auth.user.renamed.v1', ${ago(processedAgo)})`.execute(db);
    await mark('retention-old-mark', 40 * DAY);
    await mark('retention-recent-mark', 20 * DAY);

    const left = async () => ({
      outbox: (await db.selectFrom('outbox').select('id').where('id', 'like', 'retention-%').execute())
        .map((r) => r.id)
        .sort(),
      marks: (
        await db.selectFrom('processed_events').select('id').where('id', 'like', 'retention-%').execute()
      ).map((r) => r.id),
    });
    const deadline = Date.now() + 15_000;
    let now = await left();
    while ((now.outbox.length > 2 || now.marks.length > 1) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      now = await left();
    }
    // The old unpublished row waits for the relay, which publishes it (then it is recent): it stays.
    expect(now).toEqual({
      outbox: ['retention-old-unpublished', 'retention-recent-published'],
      marks: ['retention-recent-mark'],
    });
  });
});
