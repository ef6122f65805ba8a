// The only code that writes the game's SQL.
import { makeEvent, SUBJECTS, type Role } from '@omc/contracts';
import { enqueueEvent } from '@omc/service-kit';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { PurchaseRecord, TakeBackRecord, WinRecord } from './journal-types.js';

type Db = Kysely<Database> | Transaction<Database>;

export interface UserRow {
  id: string;
  username: string | null;
  role: Role;
  version: number;
  deleted: boolean;
  grantedClicks: number;
  /** The sign-up clicks are in grantedClicks (false while they wait for a verified email). */
  signupGranted: boolean;
  /** The operator's reason when an admin suspended the account; null when not suspended. */
  suspension: { reason: string } | null;
  /** auth's security version of the account (0 until the first change arrives). */
  securityVersion: number;
}

export interface UserRoundRow {
  purchased: number;
  pass: boolean;
}

export const roundWonEventId = (round: number) => `game.round.won.${round}`;

export async function findUsers(db: Db, ids: string[]): Promise<Map<string, UserRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('users')
    .select([
      'id',
      'username',
      'role',
      'version',
      'deleted_at',
      'granted_clicks',
      'signup_clicks_granted',
      'suspended_at',
      'suspended_reason',
      'security_version',
    ])
    .where('id', 'in', ids)
    .execute();
  return new Map(
    rows.map((r) => [
      r.id,
      {
        id: r.id,
        username: r.username,
        role: r.role as Role,
        version: Number(r.version),
        deleted: r.deleted_at !== null,
        grantedClicks: Number(r.granted_clicks),
        signupGranted: r.signup_clicks_granted,
        suspension: r.suspended_at ? { reason: r.suspended_reason ?? '' } : null,
        securityVersion: Number(r.security_version),
      },
    ]),
  );
}

export async function findUserRounds(
  db: Db,
  ids: string[],
  round: number,
): Promise<Map<string, UserRoundRow>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('user_rounds')
    .select(['user_id', 'purchased_clicks', 'purchased_spent', 'pass'])
    .where('user_id', 'in', ids)
    .where('round', '=', round)
    .execute();
  return new Map(
    rows.map((r) => [
      r.user_id,
      { purchased: Math.max(0, Number(r.purchased_clicks) - Number(r.purchased_spent)), pass: r.pass },
    ]),
  );
}

/** Creates the user with the sign-up grant (or without it, still to come); false when it already existed. */
export async function insertUser(
  db: Db,
  user: { id: string; username: string; role: Role; grantedClicks: number; signupGranted: boolean },
): Promise<boolean> {
  const inserted = await db
    .insertInto('users')
    .values({
      id: user.id,
      username: user.username,
      role: user.role,
      granted_clicks: user.grantedClicks,
      signup_clicks_granted: user.signupGranted,
    })
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

function roleIsNewer(
  current: { role_version: string | null; role_changed_at: Date | null },
  version: number | undefined,
  at: Date,
): boolean {
  if (version !== undefined) return current.role_version === null || Number(current.role_version) < version;
  return current.role_version === null && (!current.role_changed_at || current.role_changed_at < at);
}

/**
 * Applies a role, name or deletion as of `at` (when auth made the change); a change older than the one
 * already applied is ignored. A role is ordered by `roleVersion` (auth's sequence) when the change has
 * one; an unversioned change (an event from before versions) by `at`, and only while no versioned change
 * was applied. Throws when the user is unknown (the event is retried later).
 */
export async function updateUser(
  db: Db,
  id: string,
  change: { role?: Role; roleVersion?: number; username?: string; deleted?: true },
  at: Date,
): Promise<void> {
  const current = await db
    .selectFrom('users')
    .select(['role_changed_at', 'role_version', 'renamed_at', 'deleted_at'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!current) throw new Error(`user ${id} is not known yet`);
  if (current.deleted_at && !change.deleted) return;
  if (change.role && !roleIsNewer(current, change.roleVersion, at)) return;
  if (change.username !== undefined && current.renamed_at && current.renamed_at >= at) return;
  await db
    .updateTable('users')
    .set((eb) => ({
      version: eb('version', '+', 1),
      ...(change.role
        ? {
            role: change.role,
            role_changed_at: at,
            ...(change.roleVersion !== undefined ? { role_version: change.roleVersion } : {}),
          }
        : {}),
      ...(change.username !== undefined ? { username: change.username, renamed_at: at } : {}),
      ...(change.deleted ? { username: null, deleted_at: at } : {}),
    }))
    .where('id', '=', id)
    .execute();
  if (change.deleted) {
    // Personal data goes; the wins stay, anonymous.
    await db
      .updateTable('winners')
      .set({ user_id: null, username: null })
      .where('user_id', '=', id)
      .execute();
    await db
      .updateTable('rounds')
      .set({ last_click_user_id: null })
      .where('last_click_user_id', '=', id)
      .execute();
  }
}

/**
 * Applies auth's access state (suspended or not, at a security version) when its version is newer than the one the game holds
 * (a repeated or late change is a no-op); raises the user's version so Redis takes it (UserStore.sync).
 * Returns false when the user is unknown (the caller waits or the event is retried).
 */
export async function applyAccess(
  db: Db,
  id: string,
  change: { suspended: boolean; reason: string | null; securityVersion: number },
  at: Date,
): Promise<boolean> {
  const current = await db
    .selectFrom('users')
    .select(['security_version'])
    .where('id', '=', id)
    .forUpdate()
    .executeTakeFirst();
  if (!current) return false;
  if (Number(current.security_version) >= change.securityVersion) return true;
  await db
    .updateTable('users')
    .set((eb) => ({
      version: eb('version', '+', 1),
      security_version: change.securityVersion,
      suspended_at: change.suspended ? at : null,
      suspended_reason: change.suspended ? (change.reason ?? '') : null,
    }))
    .where('id', '=', id)
    .execute();
  return true;
}

/** Records a purchase and credits its clicks or pass to its round, once per purchase id. */
export async function recordPurchase(db: Db, purchase: PurchaseRecord): Promise<boolean> {
  const inserted = await db
    .insertInto('purchases')
    .values({
      purchase_id: purchase.id,
      user_id: purchase.userId,
      round: purchase.round,
      pack_id: purchase.packId,
      clicks: purchase.unlimited ? null : purchase.clicks,
      unlimited: purchase.unlimited,
      pot_share_cents: purchase.potShareCents,
    })
    .onConflict((oc) => oc.column('purchase_id').doNothing())
    .returning('purchase_id')
    .executeTakeFirst();
  if (!inserted) return false;
  await db
    .insertInto('user_rounds')
    .values({
      user_id: purchase.userId,
      round: purchase.round,
      purchased_clicks: purchase.unlimited ? 0 : purchase.clicks,
      pass: purchase.unlimited,
    })
    .onConflict((oc) =>
      oc.columns(['user_id', 'round']).doUpdateSet((eb) => ({
        purchased_clicks: eb('user_rounds.purchased_clicks', '+', eb.ref('excluded.purchased_clicks')),
        pass: sql<boolean>`user_rounds.pass or excluded.pass`,
      })),
    )
    .execute();
  return true;
}

/**
 * Records a refunded purchase's take-back once per purchase id, and removes its clicks or pass from the
 * buyer's round (what a rebuild loads). Returns false when it was recorded before.
 */
export async function recordTakeBack(db: Db, takeback: TakeBackRecord): Promise<boolean> {
  const inserted = await db
    .insertInto('purchase_takebacks')
    .values({
      purchase_id: takeback.id,
      user_id: takeback.userId,
      round: takeback.round,
      round_in_play: takeback.roundInPlay,
      clicks: takeback.clicks,
      pass: takeback.pass,
      pot_cents: takeback.potCents,
    })
    .onConflict((oc) => oc.column('purchase_id').doNothing())
    .returning('purchase_id')
    .executeTakeFirst();
  if (!inserted || (takeback.clicks === 0 && !takeback.pass)) return Boolean(inserted);
  await db
    .updateTable('user_rounds')
    .set((eb) => ({
      purchased_clicks: eb('purchased_clicks', '-', takeback.clicks),
      pass: takeback.pass ? false : eb.ref('pass'),
    }))
    .where('user_id', '=', takeback.userId)
    .where('round', '=', takeback.round)
    .execute();
  return true;
}

/** A purchase's take-back as recorded; undefined when it has none. */
export async function recordedTakeBack(db: Db, purchaseId: string): Promise<TakeBackRecord | undefined> {
  const row = await db
    .selectFrom('purchase_takebacks')
    .selectAll()
    .where('purchase_id', '=', purchaseId)
    .executeTakeFirst();
  return row
    ? {
        id: row.purchase_id,
        userId: row.user_id,
        round: Number(row.round),
        roundInPlay: row.round_in_play,
        clicks: Number(row.clicks),
        pass: row.pass,
        potCents: Number(row.pot_cents),
      }
    : undefined;
}

export async function purchaseRound(db: Db, purchaseId: string): Promise<number | undefined> {
  const row = await db
    .selectFrom('purchases')
    .select('round')
    .where('purchase_id', '=', purchaseId)
    .executeTakeFirst();
  return row ? Number(row.round) : undefined;
}

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

/**
 * Adds a user's sign-up clicks with their mark, once: written by the event's handler before the event is
 * acknowledged (so a Redis lost before the journal's flush loses no grant), and again by the journal,
 * which then changes nothing. Returns whether this call granted them.
 */
export async function recordSignupGrant(db: Db, userId: string, clicks: number): Promise<boolean> {
  const row = await db
    .updateTable('users')
    .set((eb) => ({ granted_clicks: eb('granted_clicks', '+', clicks), signup_clicks_granted: true }))
    .where('id', '=', userId)
    .where('signup_clicks_granted', '=', false)
    .returning('id')
    .executeTakeFirst();
  return row !== undefined;
}

export async function addGrantedClicks(db: Db, deltas: Map<string, number>): Promise<void> {
  const ids = [...deltas.keys()];
  if (ids.length === 0) return;
  const values = ids.map((id) => deltas.get(id)!);
  await sql`update users u set granted_clicks = u.granted_clicks + d.delta
    from unnest(${ids}::uuid[], ${values}::bigint[]) as d(id, delta) where u.id = d.id`.execute(db);
}

export async function addPurchasedSpent(
  db: Db,
  spends: { userId: string; round: number; spent: number }[],
): Promise<void> {
  if (spends.length === 0) return;
  await sql`insert into user_rounds (user_id, round, purchased_spent)
    select * from unnest(${spends.map((s) => s.userId)}::uuid[], ${spends.map((s) => s.round)}::bigint[], ${spends.map((s) => s.spent)}::bigint[])
    on conflict (user_id, round) do update set purchased_spent = user_rounds.purchased_spent + excluded.purchased_spent`.execute(
    db,
  );
}

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

// Advisory locks (transaction-scoped; Postgres hashes the names to lock ids).

/**
 * Taken (shared) by every transaction that writes what Redis decided (a win, a journal flush), and
 * (exclusive) by a rebuild of the round state: the rebuild reads Postgres only once every such write
 * under way has committed, and writes wait while a rebuild reads.
 */
const STATE_WRITES_LOCK = 'omc-game-state-writes';
/** One journal flush at a time (the Redis lock can expire under a very slow Postgres). */
const JOURNAL_LOCK = 'omc-game-journal';

export async function lockStateWritesShared(trx: Transaction<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock_shared(hashtext(${STATE_WRITES_LOCK}))`.execute(trx);
}

export async function lockStateWritesForRebuild(trx: Transaction<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${STATE_WRITES_LOCK}))`.execute(trx);
}

export async function lockJournal(trx: Transaction<Database>): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${JOURNAL_LOCK}))`.execute(trx);
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
