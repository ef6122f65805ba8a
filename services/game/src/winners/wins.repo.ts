// Round wins as the game writes them (with the round-won event, outbox) and reads them back to check one.
import { makeEvent, SUBJECTS } from '@omc/contracts';
import { enqueueEvent } from '@omc/service-kit';
import type { Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Db } from '../db/db.js';
import type { WinRecord } from '../db/records.js';

export const roundWonEventId = (round: number) => `game.round.won.${round}`;

/**
 * Writes a round's win with its round-won event (outbox) in one transaction, once per round (the
 * winners table's unique round decides). Returns false when the round already had its winner.
 */
export async function recordWin(trx: Transaction<Database>, win: WinRecord): Promise<boolean> {
  const wonAt = new Date(win.at);
  const inserted = await trx
    .insertInto('winners')
    .values({
      round: win.round,
      user_id: win.userId,
      username: win.username || null,
      pot_cents: win.potCents,
      clicks: win.clicks,
      won_at: wonAt,
    })
    .onConflict((oc) => oc.column('round').doNothing())
    .returning('id')
    .executeTakeFirst();
  if (!inserted) return false;
  // A user deleted meanwhile keeps their win anonymous.
  await trx
    .updateTable('winners')
    .set({ user_id: null, username: null })
    .where('round', '=', win.round)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('users').select('id').where('id', '=', win.userId).where('deleted_at', 'is not', null),
      ),
    )
    .execute();
  await trx
    .insertInto('rounds')
    .values({ round: win.round, clicks: win.clicks, last_click_user_id: win.userId, closed_at: wonAt })
    .onConflict((oc) =>
      oc
        .column('round')
        .doUpdateSet({ clicks: win.clicks, last_click_user_id: win.userId, closed_at: wonAt }),
    )
    .execute();
  await enqueueEvent(
    trx,
    makeEvent(
      SUBJECTS.roundWon,
      {
        round: win.round,
        winnerUserId: win.userId,
        winnerUsername: win.username || 'deleted user',
        potCents: win.potCents,
        clicks: win.clicks,
        wonAt: wonAt.toISOString(),
      },
      roundWonEventId(win.round),
    ),
  );
  return true;
}

/**
 * Writes a win once per round, telling a duplicate of a recorded win (the journal's second path) from a
 * second win of a round already won, which only a Redis state behind Postgres can produce.
 */
export async function recordWinOnce(
  trx: Transaction<Database>,
  win: WinRecord,
): Promise<'written' | 'duplicate' | 'replayed'> {
  if (await recordWin(trx, win)) return 'written';
  const recorded = await recordedWin(trx, win.round);
  return recorded && recorded.won_at.getTime() !== win.at ? 'replayed' : 'duplicate';
}

/** The highest round with a recorded winner (0 = none). */
export async function lastWonRound(db: Db): Promise<number> {
  const row = await db
    .selectFrom('winners')
    .select((eb) => eb.fn.max<number>('round').as('round'))
    .executeTakeFirst();
  return Number(row?.round ?? 0);
}

/** Who won the round as recorded (to tell a duplicate of this win from a second, replayed one). */
export async function recordedWin(db: Db, round: number) {
  return db.selectFrom('winners').select(['clicks', 'won_at']).where('round', '=', round).executeTakeFirst();
}
