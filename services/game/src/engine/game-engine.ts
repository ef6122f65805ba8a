// The round engine: clicks go to Redis in batches (one script call per batch, each click with its exact
// ordinal), users and the round state are loaded into Redis from Postgres when Redis lacks them, and
// purchases are applied once. Postgres is brought up to date by the journal flusher (journal/).
import { randomBytes } from 'node:crypto';
import { AppError, type Redis } from '@omc/service-kit';
import { UNLIMITED_CLICKS, type PurchaseCompletedV1 } from '@omc/contracts';
import { sql, type Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import {
  currentRoundSnapshot,
  findUserRounds,
  findUsers,
  purchaseRound,
  recordPurchase,
  recordWin,
} from './game.repo.js';
import type { WinRecord } from './journal-types.js';
import { KEYS } from './keys.js';
import { gameRedis, type GameRedis } from './redis-commands.js';

export interface HotState {
  round: number;
  globalClicks: number;
  potCents: number;
  lastClickUser: string | null;
  lastWinner: string | null;
}

export type ClickOutcome =
  | { accepted: true; globalClicks: number; round: number; freeClicks: number; reward: number; won: boolean }
  | {
      accepted: false;
      reason: 'no_clicks' | 'rate_limited' | 'address_rate_limited' | 'unknown_user' | 'deleted_user';
    };

export interface UserView {
  freeClicks: number;
  purchasedClicks: number;
  hasInfiniteClicks: boolean;
}

export interface EngineHooks {
  onBatch?: (size: number) => void;
  onOutcome?: (outcome: string, count: number) => void;
  onWin?: (win: WinRecord) => void;
  onWinPersisted?: () => void;
  /** The state changed; `state` is the state right after the change when the step returned it. */
  onStateChanged?: (state?: HotState) => void;
}

/** A user's record in Redis (see KEYS.users). */
interface UserRecord {
  ok?: number;
  del?: number;
  role?: string;
  g?: number;
  pr?: number;
  p?: number;
  pass?: number;
}

interface PendingClick {
  userId: string;
  /** The client's address, for the per-address budget ('' = unknown). */
  address: string;
  resolve: (outcome: ClickOutcome) => void;
  reject: (error: Error) => void;
}

const STATUS = { accepted: 1, noClicks: 2, rateLimited: 3, notLoaded: 4, deleted: 5, addressRateLimited: 6 } as const;
const MAX_BATCH = 1000;
/** A batch this large goes at once, without waiting for the window. */
const FULL_BATCH = 256;
/** Postgres advisory lock name for rebuilding the state (hashed to the lock id by Postgres). */
const REBUILD_LOCK = 'omc-game-rebuild-state';

const unavailable = () =>
  new AppError('UNAVAILABLE', 503, 'The game is briefly unavailable; please try again');

export class GameEngine {
  private readonly scripts: GameRedis;
  private readonly milestones: string;
  private queue: PendingClick[] = [];
  private running = false;
  private scheduled = false;
  private lastBatchAt = Number.NEGATIVE_INFINITY;
  private restoring: Promise<void> | undefined;
  private closed = false;
  private readonly winWrites = new Set<Promise<void>>();
  private readonly recentlyUnknown = new Map<string, number>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly redis: Redis,
    private readonly config: Config,
    private readonly log: Logger,
    private readonly clock: () => number,
    private readonly hooks: EngineHooks = {},
  ) {
    this.scripts = gameRedis(redis);
    this.milestones = config.MILESTONES.map((m) => `${m.at}:${m.freeClicks}`).join(',');
  }

  // ---- clicks -------------------------------------------------------------------------------------

  /** Queues one click; it goes to Redis with the others that arrive meanwhile. */
  click(userId: string, address = ''): Promise<ClickOutcome> {
    if (this.closed) return Promise.reject(unavailable());
    return new Promise((resolve, reject) => {
      this.queue.push({ userId, address, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.running || this.scheduled) return;
    this.scheduled = true;
    // One turn of the event loop gathers the clicks that arrived together.
    setImmediate(() => {
      this.scheduled = false;
      void this.drainQueue();
    });
  }

  private async drainQueue(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0) {
        // At most one batch per window: a click after a quiet window goes at once; under load the
        // clicks of a window share one Redis call (the same three commands whatever its size), so
        // Redis work follows the batches per second, not the clicks. A large batch goes at once.
        const wait =
          this.queue.length >= FULL_BATCH
            ? 0
            : this.lastBatchAt + this.config.CLICK_BATCH_WINDOW_MS - performance.now();
        if (wait > 0.5) await sleep(wait);
        this.lastBatchAt = performance.now();
        const batch = this.queue.splice(0, MAX_BATCH);
        await this.runBatch(batch);
      }
    } finally {
      this.running = false;
    }
  }

  /** One bucket key per distinct address in the batch, and each click's bucket number (0 = none). */
  private addressBuckets(pending: PendingClick[]): { keys: string[]; slots: number[] } {
    const keys: string[] = [];
    if (this.config.CLICK_RATE_PER_IP <= 0) return { keys, slots: pending.map(() => 0) };
    const numbers = new Map<string, number>();
    const slots = pending.map((p) => {
      if (!p.address) return 0;
      let slot = numbers.get(p.address);
      if (slot === undefined) {
        keys.push(KEYS.addressBucket(p.address));
        slot = keys.length;
        numbers.set(p.address, slot);
      }
      return slot;
    });
    return { keys, slots };
  }

  private async runBatch(batch: PendingClick[]): Promise<void> {
    let pending = batch;
    for (let attempt = 0; attempt < 4 && pending.length > 0; attempt++) {
      let reply: (number | string)[];
      try {
        this.hooks.onBatch?.(pending.length);
        const addresses = this.addressBuckets(pending);
        reply = await this.scripts.clickBatch(
          [KEYS.state, KEYS.journal, KEYS.users, ...addresses.keys],
          [
            this.clock(),
            this.config.ROUND_TARGET,
            this.config.CLICK_RATE_PER_USER,
            this.config.CLICK_RATE_PER_IP,
            this.milestones,
            ...pending.flatMap((p, i) => [p.userId, addresses.slots[i]!]),
          ],
        );
      } catch (error) {
        this.log.warn({ err: error }, 'click batch failed');
        for (const p of pending) p.reject(unavailable());
        return;
      }
      if (reply[0] === -1) {
        try {
          await this.ensureState();
        } catch (error) {
          this.log.error({ err: error }, 'rebuilding the state failed');
          for (const p of pending) p.reject(unavailable());
          return;
        }
        continue;
      }
      if (typeof reply[1] === 'string' && reply[1] !== '')
        this.handleWins(JSON.parse(reply[1]) as WinRecord[]);
      const notLoaded: PendingClick[] = [];
      const counts = new Map<string, number>();
      const count = (outcome: string) => counts.set(outcome, (counts.get(outcome) ?? 0) + 1);
      for (let i = 0; i < pending.length; i++) {
        const base = 7 + i * 6;
        const status = Number(reply[base]);
        const p = pending[i]!;
        if (status === STATUS.accepted) {
          const balance = Number(reply[base + 3]);
          count('accepted');
          p.resolve({
            accepted: true,
            globalClicks: Number(reply[base + 1]),
            round: Number(reply[base + 2]),
            freeClicks: balance < 0 ? UNLIMITED_CLICKS : balance,
            reward: Number(reply[base + 4]),
            won: Number(reply[base + 5]) === 1,
          });
        } else if (status === STATUS.noClicks) {
          count('no_clicks');
          p.resolve({ accepted: false, reason: 'no_clicks' });
        } else if (status === STATUS.rateLimited) {
          count('rate_limited');
          p.resolve({ accepted: false, reason: 'rate_limited' });
        } else if (status === STATUS.addressRateLimited) {
          count('address_rate_limited');
          p.resolve({ accepted: false, reason: 'address_rate_limited' });
        } else if (status === STATUS.deleted) {
          count('deleted_user');
          p.resolve({ accepted: false, reason: 'deleted_user' });
        } else {
          notLoaded.push(p);
        }
      }
      for (const [outcome, n] of counts) this.hooks.onOutcome?.(outcome, n);
      if ((counts.get('accepted') ?? 0) > 0) {
        this.hooks.onStateChanged?.({
          round: Number(reply[2]),
          globalClicks: Number(reply[3]),
          potCents: Number(reply[4]),
          lastClickUser: (reply[5] as string) || null,
          lastWinner: (reply[6] as string) || null,
        });
      }
      pending = [];
      if (notLoaded.length > 0) {
        let unknown: Set<string>;
        try {
          unknown = await this.ensureUsers([...new Set(notLoaded.map((p) => p.userId))]);
        } catch (error) {
          this.log.warn({ err: error }, 'loading users failed');
          for (const p of notLoaded) p.reject(unavailable());
          return;
        }
        for (const p of notLoaded) {
          if (unknown.has(p.userId)) {
            this.hooks.onOutcome?.('unknown_user', 1);
            p.resolve({ accepted: false, reason: 'unknown_user' });
          } else pending.push(p);
        }
      }
    }
    for (const p of pending) p.reject(unavailable());
  }

  // ---- wins ---------------------------------------------------------------------------------------

  /** The closing instance writes the win at once; the journal in Redis is the second path if it dies. */
  private handleWins(wins: WinRecord[]): void {
    for (const win of wins) {
      this.hooks.onWin?.(win);
      this.log.info({ round: win.round, winner: win.userId, potCents: win.potCents }, 'round won');
      const write = this.persistWin(win).finally(() => this.winWrites.delete(write));
      this.winWrites.add(write);
    }
  }

  private async persistWin(win: WinRecord): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.db.transaction().execute((trx) => recordWin(trx, win));
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

  // ---- state --------------------------------------------------------------------------------------

  /** The round state as Redis holds it now (rebuilt from Postgres first if Redis lost it). */
  async readState(): Promise<HotState> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const [round, clicks, pot, lcn, lwn, lcu, lwu] = await this.redis.hmget(
        KEYS.state,
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
      await this.ensureState();
    }
    throw unavailable();
  }

  /** Rebuilds the round state in Redis from Postgres when Redis has none; one instance at a time. */
  ensureState(): Promise<void> {
    this.restoring ??= this.rebuildState().finally(() => {
      this.restoring = undefined;
    });
    return this.restoring;
  }

  private async rebuildState(): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(hashtext(${REBUILD_LOCK}))`.execute(trx);
      if ((await this.redis.hexists(KEYS.state, 'round')) === 1) return;
      let snapshot = await currentRoundSnapshot(trx);
      if (snapshot.round > 1 || snapshot.clicks > 0 || snapshot.potCents > 0) {
        // Redis lost a game in progress: let writes already under way (a win, a journal flush) land first.
        await sleep(Math.min(1000, 2 * this.config.JOURNAL_FLUSH_MS + 100));
        snapshot = await currentRoundSnapshot(trx);
      }
      const epoch = randomBytes(6).toString('hex');
      const restored = await this.scripts.restoreState(KEYS.state, [
        snapshot.round,
        snapshot.clicks,
        snapshot.potCents,
        epoch,
        snapshot.lastClicker?.id ?? '',
        snapshot.lastClicker?.name ?? '',
        snapshot.lastWinner?.id ?? '',
        snapshot.lastWinner?.name ?? '',
      ]);
      if (restored === 1) {
        const fresh = snapshot.round === 1 && snapshot.clicks === 0 && snapshot.potCents === 0;
        this.log[fresh ? 'info' : 'warn'](
          { round: snapshot.round, clicks: snapshot.clicks, potCents: snapshot.potCents, epoch },
          'round state rebuilt in Redis from Postgres',
        );
        this.hooks.onStateChanged?.();
      }
    });
  }

  private async currentRound(): Promise<number> {
    const round = await this.redis.hget(KEYS.state, 'round');
    if (round) return Number(round);
    return (await this.readState()).round;
  }

  // ---- users --------------------------------------------------------------------------------------

  /**
   * Loads into Redis the users it lacks, from Postgres; returns the ids Postgres does not know either.
   * An id found unknown is not looked up again for a second (a flood of clicks by a user auth has not
   * announced yet must not become a flood of queries), unless `fresh` (an event says it exists now).
   */
  async ensureUsers(ids: string[], fresh = false): Promise<Set<string>> {
    const now = this.clock();
    const unknownNow = fresh ? [] : ids.filter((id) => (this.recentlyUnknown.get(id) ?? 0) > now);
    const lookup = ids.filter((id) => !unknownNow.includes(id));
    if (lookup.length === 0) return new Set(ids);
    const round = await this.currentRound();
    const users = await findUsers(this.db, lookup);
    if (this.recentlyUnknown.size > 10_000) this.recentlyUnknown.clear();
    for (const id of lookup) {
      if (users.has(id)) this.recentlyUnknown.delete(id);
      else this.recentlyUnknown.set(id, now + 1000);
    }
    const rounds = await findUserRounds(this.db, [...users.keys()], round);
    const pipeline = this.redis.pipeline();
    for (const user of users.values()) {
      const own = rounds.get(user.id);
      (pipeline as any).gameLoadUser(
        1,
        KEYS.users,
        user.id,
        user.version,
        user.role,
        user.username ?? '',
        user.deleted ? 1 : 0,
        user.grantedClicks,
        round,
        own?.purchased ?? 0,
        own?.pass ? round : 0,
      );
    }
    if (users.size > 0) {
      const results = await pipeline.exec();
      const failed = results?.find(([error]) => error);
      if (failed) throw failed[0]!;
    }
    return new Set(ids.filter((id) => !users.has(id)));
  }

  /** Pushes a user's role, name or deletion from Postgres to Redis (idempotent by version). */
  async syncUser(userId: string): Promise<void> {
    const user = (await findUsers(this.db, [userId])).get(userId);
    if (!user) return;
    const changed = await this.scripts.updateUserMeta(
      [KEYS.users, KEYS.state],
      [user.version, user.role, user.username ?? '', user.deleted ? 1 : 0, userId],
    );
    if (changed === 1) this.hooks.onStateChanged?.();
  }

  /** The caller's balance as the game sees it now; null when the game does not know the user. */
  async userView(userId: string): Promise<UserView | null> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const round = await this.currentRound();
      const raw = await this.redis.hget(KEYS.users, userId);
      const user = raw ? (JSON.parse(raw) as UserRecord) : undefined;
      if (user?.ok === 1) {
        if (user.del === 1) return null;
        const purchased = user.pr === round ? (user.p ?? 0) : 0;
        const unlimited = user.role === 'admin' || user.role === 'superuser' || user.pass === round;
        return {
          freeClicks: unlimited ? UNLIMITED_CLICKS : (user.g ?? 0) + purchased,
          purchasedClicks: purchased,
          hasInfiniteClicks: unlimited,
        };
      }
      const unknown = await this.ensureUsers([userId], true);
      if (unknown.has(userId)) return null;
    }
    throw unavailable();
  }

  // ---- purchases ----------------------------------------------------------------------------------

  /** Adds a purchase's clicks (or pass) and pot share to the current round, once. Returns its round. */
  async applyPurchase(purchase: z.infer<typeof PurchaseCompletedV1>): Promise<number> {
    const known = await purchaseRound(this.db, purchase.purchaseId);
    if (known !== undefined) return known;
    for (let attempt = 0; attempt < 4; attempt++) {
      const reply = await this.scripts.applyPurchase(
        [KEYS.state, KEYS.journal, KEYS.purchases, KEYS.users],
        [
          purchase.purchaseId,
          purchase.userId,
          purchase.clicks ?? 0,
          purchase.unlimited ? 1 : 0,
          purchase.potShareCents,
          purchase.packId,
        ],
      );
      const code = Number(reply[0]);
      if (code === -1) {
        await this.ensureState();
        continue;
      }
      if (code === -2) {
        const unknown = await this.ensureUsers([purchase.userId], true);
        if (unknown.has(purchase.userId))
          throw new Error(`purchase for user ${purchase.userId}, who is not known yet`);
        continue;
      }
      const round = Number(reply[1]);
      await recordPurchase(this.db, {
        id: purchase.purchaseId,
        userId: purchase.userId,
        round,
        clicks: purchase.clicks ?? 0,
        unlimited: purchase.unlimited,
        potShareCents: purchase.potShareCents,
        packId: purchase.packId,
      });
      if (code === 1) this.hooks.onStateChanged?.();
      return round;
    }
    throw new Error('purchase could not be applied');
  }

  /** Stops taking clicks and waits for what is under way. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.running || this.queue.length > 0) await sleep(5);
    await Promise.allSettled([...this.winWrites]);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
