// The round state as Postgres records it: the state generation Redis writes are accepted from, each
// round's progress, and the snapshot a rebuild of Redis starts from.
import { sql } from 'kysely';
import type { Db } from '../db/db.js';

export async function advanceRounds(
  db: Db,
  positions: Map<number, { pos: number; last: string | null }>,
): Promise<void> {
  for (const [round, { pos, last }] of positions) {
    await sql`insert into rounds (round, clicks, last_click_user_id) values (${round}, ${pos}, ${last})
      on conflict (round) do update set
        last_click_user_id = case when excluded.clicks >= rounds.clicks then excluded.last_click_user_id else rounds.last_click_user_id end,
        clicks = greatest(rounds.clicks, excluded.clicks)`.execute(db);
  }
}

export interface StateGeneration {
  generation: number;
  epoch: string;
}

/** The Redis state Postgres accepts writes from; undefined before the first rebuild recorded one. */
export async function currentGeneration(db: Db): Promise<StateGeneration | undefined> {
  const row = await db
    .selectFrom('state_generation')
    .select(['generation', 'epoch'])
    .where('id', '=', 1)
    .executeTakeFirst();
  return row ? { generation: Number(row.generation), epoch: row.epoch } : undefined;
}

/**
 * Records the epoch of a running Redis state as the current generation when none is recorded yet (the
 * first start after this record existed); returns the generation recorded, whichever it is.
 */
export async function adoptGeneration(db: Db, epoch: string): Promise<StateGeneration> {
  await db
    .insertInto('state_generation')
    .values({ id: 1, generation: 1, epoch })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  return (await currentGeneration(db))!;
}

/** A rebuild's new epoch becomes the generation Postgres accepts writes from; returns its number. */
export async function advanceGeneration(db: Db, epoch: string): Promise<number> {
  const row = await db
    .insertInto('state_generation')
    .values({ id: 1, generation: 1, epoch })
    .onConflict((oc) =>
      oc.column('id').doUpdateSet({
        generation: sql`state_generation.generation + 1`,
        epoch: sql`excluded.epoch`,
        changed_at: sql`now()`,
      }),
    )
    .returning('generation')
    .executeTakeFirstOrThrow();
  return Number(row.generation);
}

/** What Postgres knows of the round in play, to rebuild Redis from. */
export async function currentRoundSnapshot(db: Db) {
  const lastWin = await db
    .selectFrom('winners')
    .leftJoin('users', 'users.id', 'winners.user_id')
    .select(['winners.round', 'winners.user_id', 'users.username'])
    .orderBy('winners.round', 'desc')
    .limit(1)
    .executeTakeFirst();
  const round = lastWin ? Number(lastWin.round) + 1 : 1;
  const progress = await db
    .selectFrom('rounds')
    .leftJoin('users', 'users.id', 'rounds.last_click_user_id')
    .select(['rounds.clicks', 'rounds.last_click_user_id', 'users.username'])
    .where('rounds.round', '=', round)
    .executeTakeFirst();
  const pot = await db
    .selectFrom('purchases')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('pot_share_cents'), sql<number>`0`).as('pot'))
    .where('round', '=', round)
    .executeTakeFirst();
  // Less what refunds took back from this round's pot.
  const takenBack = await db
    .selectFrom('purchase_takebacks')
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('pot_cents'), sql<number>`0`).as('pot'))
    .where('round', '=', round)
    .executeTakeFirst();
  const lastWinner = lastWin?.user_id ? { id: lastWin.user_id, name: lastWin.username ?? '' } : null;
  const lastClicker = progress?.last_click_user_id
    ? { id: progress.last_click_user_id, name: progress.username ?? '' }
    : lastWinner;
  return {
    round,
    clicks: Number(progress?.clicks ?? 0),
    potCents: Number(pot?.pot ?? 0) - Number(takenBack?.pot ?? 0),
    lastClicker,
    lastWinner,
  };
}
