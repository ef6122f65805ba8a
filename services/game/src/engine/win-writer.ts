// Writing round wins to Postgres at once. The closing instance writes the win as soon as its click batch
// returns; the journal entry of the same batch, in Redis, is the second path if this instance dies.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import { lockStateWritesShared, recordWin } from './game.repo.js';
import type { WinRecord } from './journal-types.js';
import type { EngineHooks } from './types.js';

export class WinWriter {
  private readonly writes = new Set<Promise<void>>();
  private closed = false;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly log: Logger,
    private readonly hooks: EngineHooks,
  ) {}

  /** Starts writing each win; retried for a while, then left to the journal. */
  write(wins: WinRecord[]): void {
    for (const win of wins) {
      this.hooks.onWin?.(win);
      this.log.info({ round: win.round, winner: win.userId, potCents: win.potCents }, 'round won');
      const write = this.persist(win).finally(() => this.writes.delete(write));
      this.writes.add(write);
    }
  }

  /** Resolves once every win write under way has finished (a rebuild waits for them). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.writes]);
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.settled();
  }

  private async persist(win: WinRecord): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.db.transaction().execute(async (trx) => {
          await lockStateWritesShared(trx);
          await recordWin(trx, win);
        });
        this.hooks.onWinPersisted?.();
        return;
      } catch (error) {
        if (attempt >= 20 || this.closed) {
          this.log.error(
            { err: error, round: win.round },
            'writing the win failed; the journal will write it',
          );
          return;
        }
        await sleep(Math.min(2000, 50 * attempt));
      }
    }
  }
}
