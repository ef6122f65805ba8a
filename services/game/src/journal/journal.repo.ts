// The journal's cursors: how far the flush applied each Redis epoch's journal.
import { sql } from 'kysely';
import type { Db } from '../db/db.js';

export interface JournalCursor {
  seq: number;
  /** Fingerprint of the entry at `seq`; null for cursors written before it was kept. */
  lastEntry: string | null;
}

export async function journalCursors(db: Db, epochs: string[]): Promise<Map<string, JournalCursor>> {
  if (epochs.length === 0) return new Map();
  const rows = await db
    .selectFrom('journal_cursor')
    .select(['epoch', 'seq', 'last_entry'])
    .where('epoch', 'in', epochs)
    .execute();
  return new Map(rows.map((r) => [r.epoch, { seq: Number(r.seq), lastEntry: r.last_entry }]));
}

export async function saveJournalCursor(
  db: Db,
  epoch: string,
  seq: number,
  lastEntry: string,
): Promise<void> {
  await db
    .insertInto('journal_cursor')
    .values({ epoch, seq, last_entry: lastEntry })
    .onConflict((oc) =>
      oc.column('epoch').doUpdateSet({
        last_entry: sql`case when excluded.seq >= journal_cursor.seq then excluded.last_entry else journal_cursor.last_entry end`,
        seq: sql`greatest(journal_cursor.seq, excluded.seq)`,
        updated_at: new Date(),
      }),
    )
    .execute();
}
