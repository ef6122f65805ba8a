// Tables that only grew: published outbox rows and processed-event marks older than their retention are
// deleted, the unpublished and the recent kept; the marks may not be kept for less than the streams keep
// events (a recreated consumer replays its stream and would apply an event twice).
import { pruneEventTables } from '@omc/service-kit';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.js';
import { startHarness, type Harness } from './harness.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('retention of the event tables', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h?.close());

  it('deletes old published outbox rows and old processed marks, and keeps everything else', async () => {
    const db = h.deps.db;
    const now = Date.now();
    const ago = (ms: number) => new Date(now - ms);
    const row = (id: string, createdAgo: number, publishedAgo: number | null) =>
      sql`insert into outbox (id, subject, payload, created_at, published_at)
          values (${id}, 'payments.purchase.completed.v1', '{}'::jsonb, ${ago(createdAgo)},
                  ${publishedAgo === null ? null : ago(publishedAgo)})`.execute(db);
    await row('retention-old-published', 3 * DAY, 3 * DAY);
    await row('retention-recent-published', 2 * HOUR, 2 * HOUR);
    await row('retention-old-unpublished', 3 * DAY, null);
    const mark = (id: string, processedAgo: number) =>
      sql`insert into processed_events (id, subject, processed_at)
          values (${id}, 'game.round.won.v1', ${ago(processedAgo)})`.execute(db);
    await mark('retention-old-mark', 40 * DAY);
    await mark('retention-recent-mark', 20 * DAY);

    // The service's own retention pass may run meanwhile and take some of them first: what is left is
    // what counts.
    await pruneEventTables(db, now, { outboxMs: DAY, processedMs: 31 * DAY });
    const outbox = (await db.selectFrom('outbox').select('id').where('id', 'like', 'retention-%').execute())
      .map((r) => r.id)
      .sort();
    expect(outbox).toEqual(['retention-old-unpublished', 'retention-recent-published']);
    const marks = (
      await db.selectFrom('processed_events').select('id').where('id', 'like', 'retention-%').execute()
    ).map((r) => r.id);
    expect(marks).toEqual(['retention-recent-mark']);
  });

  it('refuses to keep processed marks for less than the streams keep events', () => {
    expect(() => loadConfig({ ...process.env, PROCESSED_EVENTS_RETENTION_DAYS: '7' })).toThrow(
      /PROCESSED_EVENTS_RETENTION_DAYS/,
    );
  });
});
