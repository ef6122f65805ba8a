// A won round moves its pot from the round pot account to the winner's winnings, once per round, and only
// as the game recorded it: an event names a round, the game's record says who won it and what it held.
import { isPrivileged, type EventEnvelope, type InternalWin, type Role, type SUBJECTS } from '@omc/contracts';
import { processOnce } from '@omc/service-kit';
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import { ACCOUNTS, winningsAccount } from '../ledger/accounts.js';
import { balance, lockAccount, postMovement } from '../ledger/ledger.repo.js';
import type { GameRecord } from './game-record.js';
import { findRoleRecord } from '../users/users.repo.js';
import { creditedRoundsSince, insertRoundWin } from './wins.repo.js';

/**
 * A role change this close before the winning click, or any time after it, leaves the role at the click
 * uncertain: the pot then goes to the house (docs/game.md, "Staff never win the pot").
 */
export const STAFF_ROLE_MARGIN_MS = 60_000;

/**
 * Whether the round's pot goes to the house rather than the winner: the winner is an admin or a superuser
 * as payments holds the role, or their role changed around the winning click.
 */
export async function potGoesToHouse(db: Transaction<Database>, win: InternalWin): Promise<boolean> {
  const record = await findRoleRecord(db, win.winnerUserId);
  if (!record) return false;
  if (isPrivileged(record.role as Role)) return true;
  const changedAt = record.role_changed_at ? new Date(record.role_changed_at).getTime() : null;
  return changedAt !== null && changedAt >= Date.parse(win.wonAt) - STAFF_ROLE_MARGIN_MS;
}

/** Credits the recorded win once, in the caller's transaction; false when the round was already credited. */
export async function creditRecordedWin(
  trx: Transaction<Database>,
  win: InternalWin,
  source: string,
  log: Logger,
): Promise<boolean> {
  {
    const { round, winnerUserId, potCents } = win;
    await lockAccount(trx, ACCOUNTS.roundPot);
    const available = await balance(trx, ACCOUNTS.roundPot);
    // The pot holds what purchases put in it; the ledger never credits money it does not hold.
    const credited = Math.min(potCents, Math.max(available, 0));
    const inserted = await insertRoundWin(trx, {
      round,
      winnerUserId,
      potCents,
      creditedCents: credited,
      eventId: source,
    });
    if (!inserted) return false;
    const toHouse = await potGoesToHouse(trx, win);
    if (toHouse)
      log.warn({ round, winnerUserId }, 'round won by an admin or superuser: its pot goes to the house');
    if (credited < potCents)
      log.error(
        { round, potCents, available },
        'round pot larger than the ledger pot; credited what the ledger holds',
      );
    await postMovement(trx, {
      kind: 'round_won',
      reference: `round:${round}`,
      entries: [
        { accountId: ACCOUNTS.roundPot, amountCents: -credited },
        { accountId: toHouse ? ACCOUNTS.house : winningsAccount(winnerUserId), amountCents: credited },
      ],
    });
    return true;
  }
}

/**
 * A round won event: the game's record of that round is credited (not the event's own figures), once per
 * event id; an event for a round the game has no win for credits nothing and is logged as forged. The
 * game is asked before the transaction opens; no answer throws, and the event comes again.
 */
export async function applyRoundWon(
  db: Kysely<Database>,
  game: GameRecord,
  event: EventEnvelope<typeof SUBJECTS.roundWon>,
  log: Logger,
): Promise<'credited' | 'duplicate' | 'forged'> {
  const record = await game.win(event.data.round);
  if (!record) {
    log.error(
      { round: event.data.round, eventId: event.id, named: event.data.winnerUserId },
      'round won event for a round the game has no win for; nothing credited',
    );
    await processOnce(db, event, async () => undefined);
    return 'forged';
  }
  if (record.winnerUserId !== event.data.winnerUserId || record.potCents !== event.data.potCents)
    log.error(
      { round: record.round, eventId: event.id },
      "round won event differs from the game's record; the record is credited",
    );
  let credited = false;
  await processOnce(db, event, async (trx) => {
    credited = await creditRecordedWin(trx, record, event.id, log);
  });
  if (!credited) log.warn({ round: record.round, eventId: event.id }, 'round already credited');
  return credited ? 'credited' : 'duplicate';
}

/**
 * docs/payments.md, "Unfinished money operations": the pass at start credits every win the game recorded
 * before it within this (one call to the game, then a transaction per win)...
 */
export const winPassBoundMs = (config: { GAME_TIMEOUT_MS: number }) => config.GAME_TIMEOUT_MS + 3000;
/** ...and any win is credited within this of payments and the game both being up (15 s by default). */
export const winCreditBoundMs = (config: { GAME_TIMEOUT_MS: number; EVENT_RECONCILE_INTERVAL_MS: number }) =>
  config.EVENT_RECONCILE_INTERVAL_MS + winPassBoundMs(config);

/** Credits every win the game recorded since `since` that was not credited (its event lost). */
export async function reconcileWins(
  db: Kysely<Database>,
  game: GameRecord,
  since: Date,
  log: Logger,
): Promise<number> {
  const wins = await game.winsSince(since);
  if (wins.length === 0) return 0;
  const credited = await creditedRoundsSince(db, wins[0]!.round);
  let repaired = 0;
  for (const win of wins) {
    if (credited.has(win.round)) continue;
    const repairedNow = await db
      .transaction()
      .execute((trx) => creditRecordedWin(trx, win, `reconciled:round:${win.round}`, log));
    if (repairedNow) {
      repaired += 1;
      log.warn({ round: win.round }, 'round win credited by reconciliation (its event never arrived)');
    }
  }
  return repaired;
}
