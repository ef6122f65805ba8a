// The round state in Redis: read it, and rebuild it from Postgres when Redis has lost it.
import { randomBytes } from 'node:crypto';
import type { Redis } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Database } from '../db/schema.js';
import { journalCursors } from '../journal/journal.repo.js';
import { lockStateWritesForRebuild } from '../db/locks.repo.js';
import {
  advanceGeneration,
  adoptGeneration,
  currentGeneration,
  currentRoundSnapshot,
} from '../state/state.repo.js';
import { lastWonRound } from '../winners/wins.repo.js';
import { KEYS } from './keys.js';
import type { GameRedis } from './redis-commands.js';
import type { EngineHooks, HotState } from './types.js';
import { unavailable } from './unavailable.js';

/** A state read slower than this is answered with the last state seen (a page's counter, not money). */
const STALE_READ_MS = 250;
import type { WinWriter } from './win-writer.js';

/** Why the Redis state is behind Postgres: it must not be trusted, and is rebuilt from Postgres. */
export interface StaleState {
  /** The epoch Redis holds (the rebuild replaces only that one). */
  epoch: string;
  reason: string;
  /** Already proven (the journal diverged from what Postgres applied): not checked again. */
  proven?: boolean;
}

type Db = Kysely<Database>;

/** Whether `state` is at least as far on as `than`: a later round, or the same round at no lower count. */
export function notOlder(state: HotState, than: HotState): boolean {
  return state.round > than.round || (state.round === than.round && state.globalClicks >= than.globalClicks);
}

export class RoundState {
  private restoring: Promise<void> | undefined;
  private last: HotState | undefined;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly redis: Redis,
    private readonly scripts: GameRedis,
    private readonly wins: WinWriter,
    private readonly log: Logger,
    private readonly hooks: EngineHooks,
  ) {}

  /**
   * The round state as Redis holds it now (rebuilt from Postgres first if Redis lost it). While Redis
   * does not answer, the last state this instance saw: a page that shows the counter stays up.
   */
  async read(): Promise<HotState> {
    const fresh = this.readFromRedis().then((state) => this.remember(state));
    const last = this.last;
    if (!last) return fresh;
    // A Redis slower than STALE_READ_MS (stalled) gets the last state at once; the read goes on and
    // refreshes it when it comes.
    let timer: NodeJS.Timeout | undefined;
    const stale = new Promise<HotState>(
      (resolve) => (timer = setTimeout(() => resolve(last), STALE_READ_MS)),
    );
    try {
      return await Promise.race([fresh.catch(() => last), stale]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * Keeps the newest state seen (read, or returned by a click batch) for reads while Redis stalls. A slow
   * read that arrives after newer click batches does not put the counter back.
   */
  remember(state: HotState): HotState {
    if (!this.last || notOlder(state, this.last)) this.last = state;
    return state;
  }

  private async readFromRedis(): Promise<HotState> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const [round, clicks, pot, lcn, lwn, lcu, lwu] = await this.redis
        .hmget(KEYS.game, 'round', 'clicks', 'pot', 'lcn', 'lwn', 'lcu', 'lwu')
        .catch(() => {
          throw unavailable();
        });
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
    return this.runRebuild();
  }

  /**
   * The fence: compares Redis with what Postgres recorded and, when Redis is behind (another generation,
   * a journal position below the flushed cursor, or a round Postgres already has a winner for), rebuilds
   * it from Postgres under a new epoch. Returns why it rebuilt, or null when Redis was up to date.
   */
  async verify(): Promise<StaleState | null> {
    const stale = await this.staleness(this.db);
    if (!stale) return null;
    await this.replaceStale(stale);
    return stale;
  }

  /** Rebuilds a Redis state found behind Postgres (only while Redis still holds that epoch). */
  replaceStale(stale: StaleState): Promise<void> {
    return this.runRebuild(stale);
  }

  private runRebuild(stale?: StaleState): Promise<void> {
    // One rebuild at a time per instance; one that runs answers every caller (the next check repeats).
    this.restoring ??= this.rebuild(stale).finally(() => {
      this.restoring = undefined;
    });
    return this.restoring;
  }

  /**
   * Reads Postgres first, then Redis: whatever Postgres recorded came from Redis earlier, so Redis read
   * afterwards is at least as far unless it went back. (A rebuild between the two reads looks like another
   * generation; the rebuild checks again under its lock.)
   */
  private async staleness(db: Db): Promise<StaleState | null> {
    const recorded = await currentGeneration(db);
    const cursor = recorded ? (await journalCursors(db, [recorded.epoch])).get(recorded.epoch) : undefined;
    const won = await lastWonRound(db);
    const [epoch, seq, round] = await this.redis.hmget(KEYS.game, 'epoch', 'seq', 'round');
    if (!epoch || !round) return null;
    // The first check after Postgres kept generations adopts the running state.
    const generation = recorded ?? (await adoptGeneration(db, epoch));
    if (generation.epoch !== epoch)
      return { epoch, reason: `Redis holds epoch ${epoch}; Postgres accepts epoch ${generation.epoch}` };
    if (cursor && cursor.seq > Number(seq ?? 0))
      return { epoch, reason: `Redis journal at ${seq}, below the ${cursor.seq} Postgres applied` };
    if (won >= Number(round)) return { epoch, reason: `Redis plays round ${round}, won already` };
    return null;
  }

  /**
   * Postgres must hold every write of what Redis decided before the rebuild reads it. The writes are win
   * records (this instance's own first: they exist in memory before their transaction starts) and
   * journal flushes; each takes the state-writes lock shared in its transaction, and the rebuild takes it
   * exclusive, so the rebuild waits exactly until those under way in any instance have committed, reads,
   * restores, and only then lets new ones in. No sleeping: nothing is guessed. The rebuild also moves the
   * generation Postgres accepts writes from to the new epoch, in the same transaction, so a write of the
   * old state that comes later (another instance's win write still waiting for a connection, a slow
   * flush) is refused instead of reopening or closing a round behind the new state's back.
   */
  private async rebuild(stale?: StaleState): Promise<void> {
    await this.wins.settled();
    await this.db.transaction().execute(async (trx) => {
      await lockStateWritesForRebuild(trx);
      let reason: string | undefined;
      if (stale) {
        const still = stale.proven ? stale : await this.staleness(trx);
        if (!still || still.epoch !== stale.epoch) return;
        reason = still.reason;
      } else if ((await this.redis.hexists(KEYS.game, 'round')) === 1) return;
      const snapshot = await currentRoundSnapshot(trx);
      const epoch = randomBytes(6).toString('hex');
      const generation = ((await currentGeneration(trx))?.generation ?? 0) + 1;
      const restored = await this.scripts.restoreState(
        [KEYS.game, KEYS.purchases],
        [
          snapshot.round,
          snapshot.clicks,
          snapshot.potCents,
          epoch,
          snapshot.lastClicker?.id ?? '',
          snapshot.lastClicker?.name ?? '',
          snapshot.lastWinner?.id ?? '',
          snapshot.lastWinner?.name ?? '',
          generation,
          stale?.epoch ?? '',
        ],
      );
      if (!restored) return;
      await advanceGeneration(trx, epoch);
      const fresh = snapshot.round === 1 && snapshot.clicks === 0 && snapshot.potCents === 0;
      this.log[fresh && !stale ? 'info' : 'warn'](
        {
          round: snapshot.round,
          clicks: snapshot.clicks,
          potCents: snapshot.potCents,
          epoch,
          generation,
          ...(stale ? { staleEpoch: stale.epoch, reason } : {}),
        },
        stale
          ? 'Redis was behind Postgres; round state rebuilt from Postgres'
          : 'round state rebuilt in Redis from Postgres',
      );
      this.hooks.onStateChanged?.();
      this.hooks.onRebuilt?.(stale ? 'stale' : 'missing');
    });
  }
}
