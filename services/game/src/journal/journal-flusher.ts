// The write-behind journal: every click batch and purchase leaves an entry in the game hash in the same
// script that changed the hot state; this flusher moves the entries to Postgres in order, aggregated, a
// few times per second. Entries are applied once (a cursor per Redis epoch), and removed from Redis only
// after their Postgres transaction committed (by the next step, in the same call that takes the next
// entries), so an instance crash loses nothing.
import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPollLoop, type Redis } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import { journalCursors, saveJournalCursor } from './journal.repo.js';
import { lockJournal, lockStateWritesShared } from '../db/locks.repo.js';
import { addGrantedClicks, recordSignupGrant } from '../players/players.repo.js';
import { addPurchasedSpent, recordPurchase, recordTakeBack } from '../purchases/purchases.repo.js';
import { advanceRounds, currentGeneration } from '../state/state.repo.js';
import { recordWinOnce } from '../winners/wins.repo.js';
import { entriesOf, parseJournalEntry, type JournalEntry } from '../engine/journal-types.js';
import { KEYS } from '../engine/keys.js';
import { gameRedis } from '../engine/redis-commands.js';
import type { StaleState } from '../engine/round-state.js';

/** What a flush found when Redis's journal is not the continuation of what Postgres applied. */
class StaleJournal extends Error {
  constructor(readonly stale: StaleState) {
    super(stale.reason);
  }
}

/** The fingerprint of a raw journal entry, kept beside the cursor to recognise the entry later. */
const fingerprint = (raw: string) => createHash('sha1').update(raw).digest('base64url');

const MAX_ENTRIES = 500;
/** How long the flusher's lock outlives its last step (another instance takes over after that). */
const LOCK_MS = 2_000;

export interface JournalFlusher {
  /** Flush now rather than at the next tick. */
  nudge(): void;
  /** Flushes until the journal is empty (tests, shutdown). */
  drain(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** Entries in Redis not yet written to Postgres (seq - fseq). */
export async function journalBacklog(redis: Redis): Promise<number> {
  const [seq, fseq] = await redis.hmget(KEYS.game, 'seq', 'fseq');
  return Math.max(0, Number(seq ?? 0) - Number(fseq ?? 0));
}

export function startJournalFlusher(
  db: Kysely<Database>,
  redis: Redis,
  log: Logger,
  options: {
    intervalMs: number;
    onWinsWritten?: () => void;
    /**
     * Redis's journal is behind Postgres (another generation, or entries that differ from those applied):
     * nothing of it was written, and Redis must be rebuilt from Postgres.
     */
    onStale?: (stale: StaleState) => void;
    /** Entries flushed to Postgres (a metric). */
    onFlushed?: (entries: number) => void;
  },
): JournalFlusher {
  const scripts = gameRedis(redis);
  // One token per flusher: the lock is renewed at each step while entries flow.
  const token = randomUUID();
  /** What this flusher wrote to Postgres and the next step removes from Redis. */
  let written: { epoch: string; upto: number } | undefined;

  const step = (maxEntries: number) =>
    scripts.journalStep(KEYS.game, [
      token,
      Date.now(),
      LOCK_MS,
      maxEntries,
      written?.epoch ?? '',
      written?.upto ?? 0,
    ]);

  /** One pass; returns how many entries it moved, or -1 when another instance holds the lock. */
  const flushOnce = async (): Promise<number> => {
    const taken = await step(MAX_ENTRIES);
    // The step removed what the previous one wrote (or found Redis rebuilt, or lost the lock).
    written = undefined;
    if (taken.lockedByAnother) return -1;
    if (taken.entries.length === 0) return 0;
    const raws = taken.entries;
    const entries = raws.map(parseJournalEntry);
    // Entries of one step share an epoch: the one Redis holds.
    const epoch = entries[0]!.epoch;
    let wins: number;
    try {
      wins = await db.transaction().execute((trx) => writeEntries(trx, log, raws, entries, epoch));
    } catch (error) {
      if (!(error instanceof StaleJournal)) throw error;
      log.warn({ epoch, reason: error.stale.reason }, 'journal not written: Redis is behind Postgres');
      options.onStale?.(error.stale);
      return 0;
    }
    // Committed: the next step removes these entries from Redis (entries of one step share an epoch).
    written = { epoch, upto: Math.max(...entries.map((e) => e.seq)) };
    options.onFlushed?.(entries.length);
    if (wins > 0) options.onWinsWritten?.();
    return entries.length;
  };

  const loop = startPollLoop(async () => (await flushOnce()) === MAX_ENTRIES, {
    intervalMs: options.intervalMs,
    log,
    failureMessage: 'journal flush failed; will retry',
  });

  return {
    nudge: () => loop.nudge(),
    async drain(timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs;
      const pending = async () => {
        const [seq, fseq] = await redis.hmget(KEYS.game, 'seq', 'fseq');
        return Number(seq ?? 0) > Number(fseq ?? 0);
      };
      while (await pending()) {
        if (Date.now() > deadline) throw new Error('journal did not drain in time');
        loop.nudge();
        await sleep(10);
      }
      // A nudge may have queued one more pass: drained means none runs until the next tick or nudge.
      await loop.idle();
    },
    async stop() {
      await loop.stop();
      // Remove what was written and release the lock, so another instance flushes at once.
      await step(0).catch(() => undefined);
    },
  };
}

/**
 * Writes one step's entries (all of `epoch`) in the flush's transaction, fenced: only the generation
 * Postgres accepts, and only entries past the cursor. Returns how many wins it wrote.
 */
async function writeEntries(
  trx: Parameters<typeof recordWinOnce>[0],
  log: Logger,
  raws: string[],
  entries: JournalEntry[],
  epoch: string,
): Promise<number> {
  // The Redis lock can expire under a very slow Postgres; this lock keeps two flushes from both
  // reading the cursor before either commits.
  await lockJournal(trx);
  // A rebuild of the round state waits for this write (round-state.ts).
  await lockStateWritesShared(trx);
  // The fence: only the Redis generation Postgres accepts is written.
  const generation = await currentGeneration(trx);
  if (generation && generation.epoch !== epoch)
    throw new StaleJournal({
      epoch,
      reason: `journal of epoch ${epoch}; Postgres accepts epoch ${generation.epoch}`,
    });
  const cursor = (await journalCursors(trx, [epoch])).get(epoch);
  const applied = cursor?.seq ?? 0;
  // Entries at or below the cursor were applied already (a crash between the commit and their
  // removal), unless Redis went back and wrote other entries under the same numbers: the entry at
  // the cursor tells, by its fingerprint; a Redis whose journal stops short of the cursor is caught
  // by the fence check (its seq is below the cursor), and rebuilt either way.
  const atCursor = entries.findIndex((e) => e.seq === applied);
  if (cursor?.lastEntry && atCursor >= 0 && fingerprint(raws[atCursor]!) !== cursor.lastEntry)
    throw new StaleJournal({
      epoch,
      reason: `journal entry ${applied} differs from the one Postgres applied`,
      proven: true,
    });
  // Taken in order of seq: the last fresh entry is the new cursor.
  const fresh = entries.filter((e) => e.seq > applied);
  if (fresh.length < entries.length)
    log.info(
      { epoch, applied, skipped: entries.length - fresh.length },
      'journal entries Postgres already applied skipped (their removal from Redis was cut short)',
    );
  const count = await applyEntries(trx, fresh, epoch);
  const last = entries.length - 1;
  if (fresh.length > 0) await saveJournalCursor(trx, epoch, entries[last]!.seq, fingerprint(raws[last]!));
  return count;
}

/**
 * Applies journal entries in one transaction, aggregated; returns how many wins it wrote. A second win of
 * a round already won aborts it: only a Redis that went back behind Postgres replays a won round.
 */
async function applyEntries(
  trx: Parameters<typeof recordWinOnce>[0],
  entries: JournalEntry[],
  epoch: string,
): Promise<number> {
  const granted = new Map<string, number>();
  const purchasedSpent = new Map<string, { userId: string; round: number; spent: number }>();
  const positions = new Map<number, { pos: number; last: string | null }>();
  let wins = 0;
  for (const entry of entries) {
    if (entry.purchase) await recordPurchase(trx, entry.purchase);
    // A refund's take-back: its handler usually recorded it already; once either way.
    if (entry.takeback) await recordTakeBack(trx, entry.takeback);
    // The event's handler usually recorded it already; once either way.
    if (entry.grant) await recordSignupGrant(trx, entry.grant.userId, entry.grant.clicks);
    for (const seg of entry.segs ?? []) {
      for (const [userId, [spentPurchased, spentGranted]] of entriesOf(seg.spends)) {
        if (spentGranted) granted.set(userId, (granted.get(userId) ?? 0) - spentGranted);
        if (spentPurchased) {
          const key = `${userId}:${seg.r}`;
          const row = purchasedSpent.get(key) ?? { userId, round: seg.r, spent: 0 };
          row.spent += spentPurchased;
          purchasedSpent.set(key, row);
        }
      }
      for (const [userId, reward] of entriesOf(seg.rewards))
        granted.set(userId, (granted.get(userId) ?? 0) + reward);
      const known = positions.get(seg.r);
      if (!known || seg.pos >= known.pos)
        positions.set(seg.r, { pos: seg.pos, last: seg.last ?? known?.last ?? null });
      if (seg.win) {
        const outcome = await recordWinOnce(trx, seg.win);
        if (outcome === 'written') wins++;
        if (outcome === 'replayed')
          throw new StaleJournal({ epoch, reason: `round ${seg.win.round} won twice`, proven: true });
      }
    }
  }
  await addGrantedClicks(trx, granted);
  await addPurchasedSpent(trx, [...purchasedSpent.values()]);
  // A won round's row was closed by recordWin; its position is the target, which greatest() keeps.
  await advanceRounds(trx, positions);
  return wins;
}
