// The winners list: the public page, and the wins payments credits.
import type { Db } from '../db/db.js';

export interface WinnerRow {
  id: string;
  round: number;
  username: string | null;
  potCents: number;
  wonAt: Date;
}

/** Newest first; `beforeRound` continues a previous page. */
export async function listWinners(db: Db, limit: number, beforeRound?: number): Promise<WinnerRow[]> {
  let query = db
    .selectFrom('winners')
    .leftJoin('users', (join) =>
      join.onRef('users.id', '=', 'winners.user_id').on('users.deleted_at', 'is', null),
    )
    .select(['winners.id', 'winners.round', 'winners.pot_cents', 'winners.won_at', 'users.username'])
    .orderBy('winners.round', 'desc')
    .limit(limit);
  if (beforeRound !== undefined) query = query.where('winners.round', '<', beforeRound);
  const rows = await query.execute();
  return rows.map((r) => ({
    id: r.id,
    round: Number(r.round),
    username: r.username,
    potCents: Number(r.pot_cents),
    wonAt: r.won_at,
  }));
}

/**
 * Won rounds as the game recorded them (payments credits a win only as written here): one round, or those
 * won since `since` after `afterRound`, by round. A win whose winner left no id (none today) is skipped.
 */
export async function recordedWins(
  db: Db,
  filter: { round: number } | { since: Date; afterRound: number; limit: number },
): Promise<
  {
    round: number;
    winnerUserId: string;
    winnerUsername: string;
    potCents: number;
    clicks: number;
    wonAt: string;
  }[]
> {
  let query = db
    .selectFrom('winners')
    .select(['round', 'user_id', 'username', 'pot_cents', 'clicks', 'won_at'])
    .where('user_id', 'is not', null)
    .orderBy('round');
  query =
    'round' in filter
      ? query.where('round', '=', filter.round)
      : query.where('won_at', '>=', filter.since).where('round', '>', filter.afterRound).limit(filter.limit);
  const rows = await query.execute();
  return rows.map((r) => ({
    round: Number(r.round),
    winnerUserId: r.user_id!,
    winnerUsername: r.username || 'deleted user',
    potCents: Number(r.pot_cents),
    clicks: Number(r.clicks),
    wonAt: r.won_at.toISOString(),
  }));
}
