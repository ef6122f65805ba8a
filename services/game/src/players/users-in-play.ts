// The users in play, held in Redis: loaded from Postgres on first use (by the click path and purchases
// too, through engine/types.ts' UserLoader), kept up to date with auth's changes (players.service.ts),
// read for a player's balance, and evicted once idle (the bound on what Redis holds).
import { UNLIMITED_CLICKS } from '@omc/contracts';
import { startPollLoop, type PollLoop, type Redis } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { findUsers, recordSignupGrant } from './players.repo.js';
import { findUserRounds } from '../purchases/purchases.repo.js';
import type { Database } from '../db/schema.js';
import { KEYS } from '../engine/keys.js';
import { decodeUserRecord, hasUnlimitedClicks } from '../engine/redis/user-record.js';
import type { GameRedis } from '../engine/redis-commands.js';
import { underRebuildFence } from '../engine/rebuild-fence.js';
import type { RoundState } from '../engine/round-state.js';
import type { EngineHooks, UserLoader, UserView } from '../engine/types.js';
import { unavailable } from '../engine/unavailable.js';

/** A user idle this long, whose changes are all in Postgres, leaves Redis (loaded again when seen). */
export const USER_IDLE_MS = 60 * 60 * 1000;
/** Fields of the game hash one eviction pass looks at. */
export const EVICTION_SCAN = 1000;
/** How often one slice of the game hash is scanned for idle users to evict. */
const EVICTION_INTERVAL_MS = 5_000;

/** The users in play, built with the round state; start() runs its eviction of idle users (startEviction). */
export class UsersInPlay implements UserLoader {
  /** Ids Postgres did not know, until when (ms) they are not looked up again. */
  private readonly recentlyUnknown = new Map<string, number>();
  private evictionCursor = '0';

  constructor(
    private readonly db: Kysely<Database>,
    private readonly redis: Redis,
    private readonly scripts: GameRedis,
    private readonly state: RoundState,
    private readonly clock: () => number,
    private readonly hooks: EngineHooks,
  ) {}

  /** Evicts idle users every few seconds until the loop it returns is stopped. */
  startEviction(log: Logger): PollLoop {
    return startPollLoop(async () => (await this.evictIdle(), false), {
      intervalMs: EVICTION_INTERVAL_MS,
      log,
      failureMessage: 'evicting idle users from Redis failed; will retry',
    });
  }

  /**
   * Loads into Redis the users it lacks, from Postgres; returns the ids Postgres does not know either.
   * An id found unknown is not looked up again for a second (a flood of clicks by a user auth has not
   * announced yet must not become a flood of queries), unless `fresh` (an event says it exists now).
   */
  async ensure(ids: string[], fresh = false): Promise<Set<string>> {
    const now = this.clock();
    const unknownNow = fresh ? [] : ids.filter((id) => (this.recentlyUnknown.get(id) ?? 0) > now);
    const lookup = ids.filter((id) => !unknownNow.includes(id));
    if (lookup.length === 0) return new Set(ids);
    const round = await this.state.currentRound();
    const users = await findUsers(this.db, lookup);
    if (this.recentlyUnknown.size > 10_000) this.recentlyUnknown.clear();
    for (const id of lookup) {
      if (users.has(id)) this.recentlyUnknown.delete(id);
      else this.recentlyUnknown.set(id, now + 1000);
    }
    const rounds = await findUserRounds(this.db, [...users.keys()], round);
    await this.scripts.loadUsers(
      KEYS.game,
      [...users.values()].map((user) => {
        const own = rounds.get(user.id);
        return {
          id: user.id,
          version: user.version,
          role: user.role,
          name: user.username,
          deleted: user.deleted,
          granted: user.grantedClicks,
          signupGranted: user.signupGranted,
          purchasedRound: round,
          purchased: own?.purchased ?? 0,
          passRound: own?.pass ? round : 0,
          suspendedReason: user.suspension?.reason ?? null,
          securityVersion: user.securityVersion,
        };
      }),
      now,
    );
    return new Set(ids.filter((id) => !users.has(id)));
  }

  /** Pushes a user's role, name or deletion from Postgres to Redis (idempotent by version). */
  async sync(userId: string): Promise<void> {
    const user = (await findUsers(this.db, [userId])).get(userId);
    if (!user) return;
    const changed = await this.scripts.updateUserMeta(KEYS.game, [
      user.version,
      user.role,
      user.username ?? '',
      user.deleted ? 1 : 0,
      userId,
      user.suspension ? 1 : 0,
      user.suspension?.reason ?? '',
      user.securityVersion,
    ]);
    if (changed) this.hooks.onStateChanged?.();
  }

  /**
   * Grants the user's sign-up clicks if they are still to come, once: Redis' record holds the mark, and
   * Postgres records the clicks with the mark before the answer (the journal's copy may not outlive
   * Redis), under the rebuild fence. Throws while the user is unknown, so the event that asked is retried.
   */
  async grantSignupClicks(userId: string, clicks: number): Promise<boolean> {
    for (let attempt = 0; attempt < 4; attempt++) {
      const reply = await underRebuildFence(
        this.db,
        this.hooks,
        () => this.scripts.grantSignupClicks(KEYS.game, userId, clicks),
        (trx) => recordSignupGrant(trx, userId, clicks),
      );
      if (reply === 'state_missing') {
        await this.state.ensure();
        continue;
      }
      if (reply === 'user_not_loaded') {
        const unknown = await this.ensure([userId], true);
        if (unknown.has(userId)) throw new Error(`sign-up clicks for user ${userId}, who is not known yet`);
        continue;
      }
      if (reply === 'granted') this.hooks.onStateChanged?.();
      return reply === 'granted';
    }
    throw new Error('sign-up clicks could not be granted');
  }

  /** The caller's balance as the game sees it now; null when the game does not know the user. */
  async view(userId: string): Promise<UserView | null> {
    for (let attempt = 0; attempt < 2; attempt++) {
      const round = await this.state.currentRound();
      const user = decodeUserRecord(await this.redis.hget(KEYS.game, userId));
      if (user?.loaded) {
        if (user.deleted) return null;
        const purchased = user.purchasedRound === round ? user.purchased : 0;
        const unlimited = hasUnlimitedClicks(user, round);
        return {
          freeClicks: unlimited ? UNLIMITED_CLICKS : user.granted + purchased,
          purchasedClicks: purchased,
          hasInfiniteClicks: unlimited,
        };
      }
      const unknown = await this.ensure([userId], true);
      if (unknown.has(userId)) return null;
    }
    throw unavailable();
  }

  /**
   * Several users' balances at once (the admin list's page): one HMGET for those Redis holds, one query
   * for the rest, read from Postgres without loading them into Redis (an evicted user's changes are all
   * there). Users the game does not know, or deleted, are absent.
   */
  async views(userIds: string[]): Promise<Map<string, UserView>> {
    const out = new Map<string, UserView>();
    if (userIds.length === 0) return out;
    const round = await this.state.currentRound();
    const raws = await this.redis.hmget(KEYS.game, ...userIds);
    const missing: string[] = [];
    userIds.forEach((id, i) => {
      const user = decodeUserRecord(raws[i]);
      if (!user?.loaded) return void missing.push(id);
      if (user.deleted) return;
      const purchased = user.purchasedRound === round ? user.purchased : 0;
      const unlimited = hasUnlimitedClicks(user, round);
      out.set(id, {
        freeClicks: unlimited ? UNLIMITED_CLICKS : user.granted + purchased,
        purchasedClicks: purchased,
        hasInfiniteClicks: unlimited,
      });
    });
    const users = await findUsers(this.db, missing);
    const rounds = await findUserRounds(this.db, [...users.keys()], round);
    for (const user of users.values()) {
      if (user.deleted) continue;
      const own = rounds.get(user.id);
      const purchased = own?.purchased ?? 0;
      const unlimited = hasUnlimitedClicks({ role: user.role, passRound: own?.pass ? round : 0 }, round);
      out.set(user.id, {
        freeClicks: unlimited ? UNLIMITED_CLICKS : user.grantedClicks + purchased,
        purchasedClicks: purchased,
        hasInfiniteClicks: unlimited,
      });
    }
    return out;
  }

  /**
   * The operator's reason for the user's suspension as Redis holds it (read only on a refused click, so
   * the click path carries no text); null when Redis says the user is not suspended.
   */
  async suspensionReason(userId: string): Promise<string | null> {
    const user = decodeUserRecord(await this.redis.hget(KEYS.game, userId));
    return user?.suspended ? (user.suspendedReason ?? '') : null;
  }

  /** One slice of the eviction scan (it also runs every few seconds); returns how many users it evicted. */
  async evictIdle(): Promise<number> {
    const reply = await this.scripts.evictIdleUsers(
      KEYS.game,
      this.evictionCursor,
      EVICTION_SCAN,
      this.clock() - USER_IDLE_MS,
    );
    this.evictionCursor = reply.cursor;
    return reply.evicted;
  }
}
