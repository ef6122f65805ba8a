// The write-behind journal: every click batch and purchase leaves an entry in the game hash in the same
// script that changed the hot state; this flusher moves the entries to Postgres in order, aggregated, a
// few times per second. Entries are applied once (a cursor per Redis epoch), and removed from Redis only
// after their Postgres transaction committed (by the next step, in the same call that takes the next
// entries), so an instance crash loses nothing.
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { startPollLoop, type Redis } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import {
  addGrantedClicks,
  addPurchasedSpent,
  advanceRounds,
  journalCursors,
  lockJournal,
  lockStateWritesShared,
  markSignupGranted,
  recordPurchase,
  recordWin,
  saveJournalCursor,
} from '../engine/game.repo.js';
import { entriesOf, parseJournalEntry, type JournalEntry } from '../engine/journal-types.js';
import { KEYS } from '../engine/keys.js';
import { gameRedis } from '../engine/redis-commands.js';

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

export function startJournalFlusher(
  db: Kysely<Database>,
  redis: Redis,
  log: Logger,
  options: { intervalMs: number; onWinsWritten?: () => void },
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
    const entries = taken.entries.map(parseJournalEntry);
    const wins = await db.transaction().execute(async (trx) => {
      // The Redis lock can expire under a very slow Postgres; this lock keeps two flushes from both
      // reading the cursor before either commits.
      await lockJournal(trx);
      // A rebuild of the round state waits for this write (round-state.ts).
      await lockStateWritesShared(trx);
      const cursors = await journalCursors(trx, [...new Set(entries.map((e) => e.epoch))]);
      const fresh = entries.filter((e) => e.seq > (cursors.get(e.epoch) ?? 0));
      const count = await applyEntries(trx, fresh);
      const highest = new Map<string, number>();
      for (const e of fresh) highest.set(e.epoch, Math.max(highest.get(e.epoch) ?? 0, e.seq));
      for (const [epoch, seq] of highest) await saveJournalCursor(trx, epoch, seq);
      return count;
    });
    // Committed: the next step removes these entries from Redis (entries of one step share an epoch).
    written = { epoch: entries[0]!.epoch, upto: Math.max(...entries.map((e) => e.seq)) };
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
    },
    async stop() {
      await loop.stop();
      // Remove what was written and release the lock, so another instance flushes at once.
      await step(0).catch(() => undefined);
    },
  };
}

/** Applies journal entries in one transaction, aggregated; returns how many wins it wrote. */
async function applyEntries(trx: Parameters<typeof recordWin>[0], entries: JournalEntry[]): Promise<number> {
  const granted = new Map<string, number>();
  const purchasedSpent = new Map<string, { userId: string; round: number; spent: number }>();
  const positions = new Map<number, { pos: number; last: string | null }>();
  const signupGranted: string[] = [];
  let wins = 0;
  for (const entry of entries) {
    if (entry.purchase) await recordPurchase(trx, entry.purchase);
    if (entry.grant) {
      granted.set(entry.grant.userId, (granted.get(entry.grant.userId) ?? 0) + entry.grant.clicks);
      signupGranted.push(entry.grant.userId);
    }
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
      if (seg.win && (await recordWin(trx, seg.win))) wins++;
    }
  }
  await addGrantedClicks(trx, granted);
  await markSignupGranted(trx, signupGranted);
  await addPurchasedSpent(trx, [...purchasedSpent.values()]);
  // A won round's row was closed by recordWin; its position is the target, which greatest() keeps.
  await advanceRounds(trx, positions);
  return wins;
}
