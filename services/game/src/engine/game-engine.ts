// The round engine, assembled from its parts: the click path (click-batcher.ts), the round state and its
// rebuild (round-state.ts), the users in play (user-store.ts), purchases (purchases.ts) and win writes
// (win-writer.ts). Postgres is brought up to date by the journal flusher (journal/). Each Redis script and
// the decoder of its reply live side by side in redis/; docs/game.md shows the data model.
import type { PurchaseCompletedV1 } from '@omc/contracts';
import { startPollLoop, type PollLoop, type Redis } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { ClickBatcher } from './click-batcher.js';
import { applyPurchase, takeBackPurchase } from './purchases.js';
import type { TakeBackFigures } from './redis/take-back.js';
import { gameRedis, type GameRedis } from './redis-commands.js';
import { RoundState, type StaleState } from './round-state.js';
import type { ClickOutcome, EngineHooks, HotState, UserView } from './types.js';
import { UserStore } from './user-store.js';
import { WinWriter } from './win-writer.js';

export type { ClickOutcome, EngineHooks, HotState, UserView } from './types.js';

/** How often one slice of the game hash is scanned for idle users to evict. */
const EVICTION_INTERVAL_MS = 5_000;

export class GameEngine {
  /** The click path; its queue is every click waiting for Redis. */
  readonly clicks: ClickBatcher;
  private readonly scripts: GameRedis;
  private readonly state: RoundState;
  private readonly users: UserStore;
  private readonly wins: WinWriter;
  private readonly eviction: PollLoop;

  constructor(
    private readonly db: Kysely<Database>,
    redis: Redis,
    config: Config,
    log: Logger,
    clock: () => number,
    private readonly hooks: EngineHooks = {},
  ) {
    this.scripts = gameRedis(redis);
    this.wins = new WinWriter(db, log, hooks, (win) => {
      // Two wins of one round: the Redis that decided the second one went back behind Postgres.
      if (win.epoch)
        void this.state
          .replaceStale({ epoch: win.epoch, reason: `round ${win.round} won twice`, proven: true })
          .catch((error: unknown) => log.error({ err: error }, 'rebuilding a stale Redis state failed'));
    });
    this.state = new RoundState(db, redis, this.scripts, this.wins, log, hooks);
    this.users = new UserStore(db, redis, this.scripts, this.state, clock, hooks);
    this.clicks = new ClickBatcher(
      this.scripts,
      this.state,
      this.users,
      this.wins,
      config,
      log,
      clock,
      hooks,
    );
    this.eviction = startPollLoop(async () => (await this.users.evictIdle(), false), {
      intervalMs: EVICTION_INTERVAL_MS,
      log,
      failureMessage: 'evicting idle users from Redis failed; will retry',
    });
  }

  /** Queues one click; it goes to Redis with the others that arrive meanwhile. */
  click(userId: string, address = '', securityVersion = 0): Promise<ClickOutcome> {
    return this.clicks.click(userId, address, securityVersion);
  }

  /** The round state as Redis holds it now (rebuilt from Postgres first if Redis lost it). */
  readState(): Promise<HotState> {
    return this.state.read();
  }

  /** Rebuilds the round state in Redis from Postgres when Redis has none; one rebuild at a time. */
  ensureState(): Promise<void> {
    return this.state.ensure();
  }

  /**
   * The fence check: rebuilds Redis from Postgres when it is behind what Postgres recorded (it runs
   * every FENCE_CHECK_MS on every instance). Returns why it rebuilt, or null.
   */
  verifyState(): Promise<StaleState | null> {
    return this.state.verify();
  }

  /** Rebuilds a Redis state proven behind Postgres (the journal flusher found it diverged). */
  replaceStaleState(stale: StaleState): Promise<void> {
    return this.state.replaceStale(stale);
  }

  /** Resolves once this instance's win writes under way have finished. */
  winsSettled(): Promise<void> {
    return this.wins.settled();
  }

  /** Loads into Redis the users it lacks; returns the ids Postgres does not know either. */
  ensureUsers(ids: string[], fresh = false): Promise<Set<string>> {
    return this.users.ensure(ids, fresh);
  }

  /** Pushes a user's role, name or deletion from Postgres to Redis (idempotent by version). */
  syncUser(userId: string): Promise<void> {
    return this.users.sync(userId);
  }

  /** Several users' balances at once, without loading them into Redis; unknown users are absent. */
  userViews(userIds: string[]): Promise<Map<string, UserView>> {
    return this.users.views(userIds);
  }

  /** The operator's reason for the user's suspension as Redis holds it; null when not suspended. */
  suspensionReason(userId: string): Promise<string | null> {
    return this.users.suspensionReason(userId);
  }

  /** Grants the user's sign-up clicks if they are still to come, once; true when granted now. */
  grantSignupClicks(userId: string, clicks: number): Promise<boolean> {
    return this.users.grantSignupClicks(userId, clicks);
  }

  /** The caller's balance as the game sees it now; null when the game does not know the user. */
  userView(userId: string): Promise<UserView | null> {
    return this.users.view(userId);
  }

  /** Evicts one slice of idle users now (tests; it also runs every few seconds). */
  evictIdleUsers(): Promise<number> {
    return this.users.evictIdle();
  }

  /** Adds a purchase's clicks (or pass) and pot share to the current round, once. Returns its round. */
  applyPurchase(purchase: z.infer<typeof PurchaseCompletedV1>): Promise<number> {
    const { db, scripts, state, users, hooks } = this;
    return applyPurchase({ db, scripts, state, users, hooks }, purchase);
  }

  /** Takes back, once, what a refunded purchase gave (its clicks or pass, and its pot share while in play). */
  takeBackPurchase(purchase: z.infer<typeof PurchaseCompletedV1>): Promise<TakeBackFigures> {
    const { db, scripts, state, users, hooks } = this;
    return takeBackPurchase({ db, scripts, state, users, hooks }, purchase);
  }

  /** Stops taking clicks and waits for what is under way. */
  async close(): Promise<void> {
    await this.eviction.stop();
    await this.clicks.close();
    await this.wins.close();
  }
}
