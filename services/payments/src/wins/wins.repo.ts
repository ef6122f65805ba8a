// Round wins credited to a winner: one row per round, whatever the event's redeliveries.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';

type Db = Kysely<Database> | Transaction<Database>;

/** Records the round's win; false when the round was already credited. */
export async function insertRoundWin(
  db: Db,
  win: { round: number; winnerUserId: string; potCents: number; creditedCents: number; eventId: string },
): Promise<boolean> {
  const inserted = await db
    .insertInto('round_wins')
    .values({
      round: win.round,
      winner_user_id: win.winnerUserId,
      pot_cents: win.potCents,
      credited_cents: win.creditedCents,
      event_id: win.eventId,
    })
    .onConflict((oc) => oc.column('round').doNothing())
    .returning('round')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** The rounds credited from `fromRound` on. */
export async function creditedRoundsSince(db: Db, fromRound: number): Promise<Set<number>> {
  const rows = await db.selectFrom('round_wins').select('round').where('round', '>=', fromRound).execute();
  return new Set(rows.map((r) => Number(r.round)));
}
