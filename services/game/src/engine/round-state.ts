// The round state in Redis: read it, and rebuild it from Postgres when Redis has lost it.
import { randomBytes } from 'node:crypto';
import type { Redis } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import { currentRoundSnapshot, lockStateWritesForRebuild } from './game.repo.js';
import { KEYS } from './keys.js';
import type { GameRedis } from './redis-commands.js';
import type { EngineHooks, HotState } from './types.js';
import { unavailable } from './unavailable.js';
import type { WinWriter } from './win-writer.js';

export class RoundState {
  private restoring: Promise<void> | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly redis: Redis,
    private readonly scripts: GameRedis,
    private readonly wins: WinWriter,
    private readonly log: Logger,
    private readonly hooks: EngineHooks,
  ) {}

  /** The round state as Redis holds it now (rebuilt from Postgres first if Redis lost it). */
  async read(): Promise<HotState> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const [round, clicks, pot, lcn, lwn, lcu, lwu] = await this.redis.hmget(
        KEYS.game,
        'round',
        'clicks',
        'pot',
        'lcn',
        'lwn',
        'lcu',
        'lwu',
      );
      if (round) {
        return {
          round: Number(round),
          globalClicks: Number(clicks ?? 0),
          potCents: Number(pot ?? 0),
          lastClickUser: lcu ? lcn || null : null,
          lastWinner: lwu ? lwn || null : null,
        };
      }
      await this.ensure();
    }
    throw unavailable();
  }

  /** The current round number (rebuilding the state first if Redis lost it). */
  async currentRound(): Promise<number> {
    const round = await this.redis.hget(KEYS.game, 'round');
    if (round) return Number(round);
    return (await this.read()).round;
  }

  /** Rebuilds the round state in Redis from Postgres when Redis has none; one rebuild at a time. */
  ensure(): Promise<void> {
    this.restoring ??= this.rebuild().finally(() => {
      this.restoring = undefined;
    });
    return this.restoring;
  }

  /**
   * Postgres must hold every write of what Redis decided before the rebuild reads it. The writes are win
   * records (this instance's own first: they exist in memory before their transaction starts) and
   * journal flushes; each takes the state-writes lock shared in its transaction, and the rebuild takes it
   * exclusive, so the rebuild waits exactly until those under way in any instance have committed, reads,
   * restores, and only then lets new ones in. No sleeping: nothing is guessed.
   */
  private async rebuild(): Promise<void> {
    await this.wins.settled();
    await this.db.transaction().execute(async (trx) => {
      await lockStateWritesForRebuild(trx);
      if ((await this.redis.hexists(KEYS.game, 'round')) === 1) return;
      const snapshot = await currentRoundSnapshot(trx);
      const epoch = randomBytes(6).toString('hex');
      const restored = await this.scripts.restoreState(KEYS.game, [
        snapshot.round,
        snapshot.clicks,
        snapshot.potCents,
        epoch,
        snapshot.lastClicker?.id ?? '',
        snapshot.lastClicker?.name ?? '',
        snapshot.lastWinner?.id ?? '',
        snapshot.lastWinner?.name ?? '',
      ]);
      if (restored) {
        const fresh = snapshot.round === 1 && snapshot.clicks === 0 && snapshot.potCents === 0;
        this.log[fresh ? 'info' : 'warn'](
          { round: snapshot.round, clicks: snapshot.clicks, potCents: snapshot.potCents, epoch },
          'round state rebuilt in Redis from Postgres',
        );
        this.hooks.onStateChanged?.();
      }
    });
  }
}
