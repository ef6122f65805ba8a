// Writing round wins to Postgres at once. The closing instance writes the win as soon as its click batch
// returns; the journal entry of the same batch, in Redis, is the second path if this instance dies.
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { backoff, RETRY_POLICIES } from '@omc/service-kit';
import type { Database } from '../db/schema.js';
import { lockStateWritesShared } from '../db/locks.repo.js';
import { currentGeneration } from '../state/state.repo.js';
import { recordWinOnce } from '../winners/wins.repo.js';
import type { WinRecord } from './journal-types.js';
import type { EngineHooks } from './types.js';

/**
 * How a win's write ended: recorded (`written`, or `duplicate` when the journal recorded it first);
 * refused because a rebuild reopened its round (`fenced`) or another winner is recorded for it
 * (`replayed`); or left to the journal after every retry failed (`failed`).
 */
export type WinWriteOutcome = 'written' | 'duplicate' | 'fenced' | 'replayed' | 'failed';

export class WinWriter {
  private readonly writes = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly log: Logger,
    private readonly hooks: EngineHooks,
    /** A second win of a recorded round came back: the Redis that decided it is behind Postgres. */
    private readonly onReplayedWin: (win: WinRecord) => void = () => undefined,
  ) {}

  /**
   * Starts writing each win; retried for a while, then left to the journal. Returns how each write ended,
   * by round (the closing click waits for its own, bounded).
   */
  write(wins: WinRecord[]): Map<number, Promise<WinWriteOutcome>> {
    const outcomes = new Map<number, Promise<WinWriteOutcome>>();
    for (const win of wins) {
      this.hooks.onWin?.(win);
      this.log.info({ round: win.round, winner: win.userId, potCents: win.potCents }, 'round won');
      const outcome = this.persist(win);
      const write = outcome.then(
        () => undefined,
        () => undefined,
      );
      this.writes.add(write);
      void write.finally(() => this.writes.delete(write));
      outcomes.set(win.round, outcome);
    }
    return outcomes;
  }

  /** Resolves once every win write under way has finished (a rebuild waits for them). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.writes]);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
  }

  private async persist(win: WinRecord): Promise<WinWriteOutcome> {
    for (let attempt = 1; ; attempt++) {
      try {
        const outcome = await this.db.transaction().execute(async (trx) => {
          await lockStateWritesShared(trx);
          // The fence: a win decided by a Redis state since rebuilt (its round reopened from Postgres) is
          // not written; the round is played again and its next winner is the one recorded.
          const generation = await currentGeneration(trx);
          if (win.epoch && generation && generation.epoch !== win.epoch) return 'fenced' as const;
          return recordWinOnce(trx, win);
        });
        if (outcome === 'fenced') {
          this.log.warn(
            { round: win.round, winner: win.userId, epoch: win.epoch },
            'win decided by a Redis state rebuilt since; not written (the round is played again)',
          );
          return outcome;
        }
        if (outcome === 'replayed') this.onReplayedWin(win);
        this.hooks.onWinPersisted?.();
        return outcome;
      } catch (error) {
        if (attempt >= 20 || this.closed) {
          this.log.error(
            { err: error, round: win.round },
            'writing the win failed; the journal will write it',
          );
          return 'failed';
        }
        await backoff(RETRY_POLICIES.winWrite, attempt - 1);
      }
    }
  }
}
