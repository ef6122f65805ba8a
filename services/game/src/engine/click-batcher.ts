// The click path: clicks wait in one queue and go to Redis in batches, one script call per batch, each
// click answered with its exact ordinal. A click reaches this queue only in its admission turn
// (clicks/admission.ts, around the call that queues it), so the queue is bounded there, not here.
import { setTimeout as sleep } from 'node:timers/promises';
import { UNLIMITED_CLICKS } from '@omc/contracts';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { KEYS } from './keys.js';
import type { ClickBatchReply, ClickStatus } from './redis/click-batch.js';
import type { GameRedis } from './redis-commands.js';
import type { RoundState } from './round-state.js';
import type { ClickOutcome, EngineHooks, UserLoader } from './types.js';
import { journalFull, unavailable, winDropped } from './unavailable.js';
import type { WinWriteOutcome, WinWriter } from './win-writer.js';

export interface PendingClick {
  userId: string;
  /** The client's address, for the per-address budget ('' = unknown). */
  address: string;
  /** The token's security version (`sv`): older than the account's, the click is refused. */
  securityVersion: number;
  /** When it was queued (performance.now()): its batch's wait is its oldest click's. */
  queuedAt: number;
  resolve: (outcome: ClickOutcome) => void;
  reject: (error: Error) => void;
}

/** The most clicks one script call carries. */
const MAX_BATCH = 1000;
/** A batch this large goes at once, without waiting for the window. */
const FULL_BATCH = 256;
/** Tries of one batch: a missing state or users not loaded yet are fixed, then the batch goes again. */
const ATTEMPTS = 4;
/** How often the offset of Redis's clock from ours is measured again (off the click path). */
const CLOCK_CHECK_MS = 5000;

/** The answers for a click the script settled (every status but user_not_loaded). */
const REFUSALS: Record<Exclude<ClickStatus, 'accepted' | 'user_not_loaded'>, ClickOutcome> = {
  no_clicks: { accepted: false, reason: 'no_clicks' },
  rate_limited: { accepted: false, reason: 'rate_limited' },
  address_rate_limited: { accepted: false, reason: 'address_rate_limited' },
  deleted_user: { accepted: false, reason: 'deleted_user' },
  suspended: { accepted: false, reason: 'suspended' },
  stale_token: { accepted: false, reason: 'stale_token' },
};

export class ClickBatcher {
  /** Every click waiting for its batch, oldest first. */
  readonly queue: PendingClick[] = [];
  private running = false;
  private scheduled = false;
  private lastBatchAt = Number.NEGATIVE_INFINITY;
  private closed = false;
  private readonly milestones: string;
  /** How far Redis's clock is ahead of ours, at least (ms); undefined until first measured. */
  private redisAhead: number | undefined;
  private redisAheadCheckedAt = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly scripts: GameRedis,
    private readonly state: RoundState,
    private readonly users: UserLoader,
    private readonly wins: WinWriter,
    private readonly config: Config,
    private readonly log: Logger,
    private readonly clock: () => number,
    private readonly hooks: EngineHooks,
  ) {
    this.milestones = config.MILESTONES.map((m) => `${m.at}:${m.freeClicks}`).join(',');
  }

  /** Queues one click; it goes to Redis with the others that arrive meanwhile. */
  click(userId: string, address = '', securityVersion = 0): Promise<ClickOutcome> {
    if (this.closed) return Promise.reject(unavailable());
    return new Promise((resolve, reject) => {
      this.queue.push({ userId, address, securityVersion, queuedAt: performance.now(), resolve, reject });
      this.kick();
    });
  }

  /** Stops taking clicks and waits for those queued. */
  async close(): Promise<void> {
    this.closed = true;
    while (this.running || this.queue.length > 0) await sleep(5);
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
        this.hooks.onBatchWait?.(this.lastBatchAt - batch[0]!.queuedAt);
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

  /**
   * Answers the click that closed a round once its win is in Postgres, so no player is told `won: true`
   * for a win that is then dropped (one click per round waits; the batch goes on without it). A win
   * refused because a rebuild reopened its round: the click was not recorded, 503 and the client tries
   * again. A write still under way after WIN_CONFIRM_TIMEOUT_MS (a slow Postgres) or left to the journal:
   * an accepted click without `won`; the win reaches the player as every other player learns it.
   */
  private answerWin(
    p: PendingClick,
    outcome: Extract<ClickOutcome, { accepted: true }>,
    write: Promise<WinWriteOutcome> | undefined,
  ): void {
    if (!write) {
      p.resolve({ ...outcome, won: false });
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.config.WIN_CONFIRM_TIMEOUT_MS);
    });
    void Promise.race([write, bound]).then((ended) => {
      clearTimeout(timer);
      this.hooks.onWinAnswer?.(ended);
      if (ended === 'fenced' || ended === 'replayed') p.reject(winDropped());
      else p.resolve({ ...outcome, won: ended === 'written' || ended === 'duplicate' });
    });
  }

  /**
   * The time, by Redis's clock, after which a batch sent now must not run: half the command timeout from
   * now. A batch still unanswered at the timeout is answered 503; Redis stalled with it queued, it finds
   * its deadline passed when it runs at last, and counts nothing. The offset is a lower bound (measured
   * as Redis's time minus ours when its answer arrived), so a deadline errs early, never late. 0 (none)
   * until the offset is known.
   */
  private deadline(): number {
    const now = performance.now();
    if (now - this.redisAheadCheckedAt >= CLOCK_CHECK_MS) {
      this.redisAheadCheckedAt = now;
      this.scripts.time().then(
        (redisNow) => (this.redisAhead = redisNow - Date.now()),
        () => (this.redisAheadCheckedAt = Number.NEGATIVE_INFINITY),
      );
    }
    if (this.redisAhead === undefined) return 0;
    return Math.floor(Date.now() + this.redisAhead + this.config.REDIS_COMMAND_TIMEOUT_MS / 2);
  }

  private async runBatch(batch: PendingClick[]): Promise<void> {
    let pending = batch;
    for (let attempt = 0; attempt < ATTEMPTS && pending.length > 0; attempt++) {
      let reply: ClickBatchReply;
      try {
        this.hooks.onBatch?.(pending.length);
        const addresses = this.addressBuckets(pending);
        const sent = performance.now();
        reply = await this.scripts.clickBatch(
          [KEYS.game, ...addresses.keys],
          [
            this.clock(),
            this.config.ROUND_TARGET,
            this.config.CLICK_RATE_PER_USER,
            this.config.CLICK_RATE_PER_IP,
            this.milestones,
            this.config.JOURNAL_MAX_BACKLOG,
            this.deadline(),
            ...pending.flatMap((p, i) => [p.userId, addresses.slots[i]!, p.securityVersion]),
          ],
          pending.length,
        );
        this.hooks.onBatchRun?.(performance.now() - sent);
      } catch (error) {
        this.log.warn({ err: error }, 'click batch failed');
        // The clicks queued meanwhile would wait for the same Redis: refused now, within the deadline.
        for (const p of [...pending, ...this.queue.splice(0)]) p.reject(unavailable());
        return;
      }
      if (reply.expired) {
        // Redis ran the batch after its caller gave up on it (a stall): nothing was counted.
        this.hooks.onOutcome?.('expired', pending.length);
        for (const p of pending) p.reject(unavailable());
        return;
      }
      if (reply.journalFull) {
        // Postgres has not taken the journal for a while: refuse rather than fill Redis.
        this.hooks.onOutcome?.('journal_full', pending.length);
        for (const p of pending) p.reject(journalFull());
        return;
      }
      if (reply.stateMissing) {
        try {
          await this.state.ensure();
        } catch (error) {
          this.log.error({ err: error }, 'rebuilding the state failed');
          for (const p of pending) p.reject(unavailable());
          return;
        }
        continue;
      }
      const winWrites = reply.wins.length > 0 ? this.wins.write(reply.wins) : undefined;
      const notLoaded: PendingClick[] = [];
      const counts = new Map<string, number>();
      reply.clicks.forEach((result, i) => {
        const p = pending[i]!;
        if (result.status === 'user_not_loaded') {
          notLoaded.push(p);
          return;
        }
        counts.set(result.status, (counts.get(result.status) ?? 0) + 1);
        if (result.status === 'accepted') {
          const outcome: ClickOutcome = {
            accepted: true,
            globalClicks: result.ordinal,
            round: result.round,
            freeClicks: result.balance ?? UNLIMITED_CLICKS,
            purchasedClicks: result.purchased,
            hasInfiniteClicks: result.balance === null,
            reward: result.reward,
            won: result.won,
          };
          if (result.won) this.answerWin(p, outcome, winWrites?.get(result.round));
          else p.resolve(outcome);
        } else p.resolve(REFUSALS[result.status]);
      });
      for (const [outcome, n] of counts) this.hooks.onOutcome?.(outcome, n);
      if ((counts.get('accepted') ?? 0) > 0) {
        this.hooks.onStateChanged?.(
          this.state.remember({
            round: reply.state.round,
            globalClicks: reply.state.globalClicks,
            potCents: reply.state.potCents,
            lastClickUser: reply.state.lastClickerName,
            lastWinner: reply.state.lastWinnerName,
          }),
        );
      }
      pending = [];
      if (notLoaded.length > 0) {
        let unknown: Set<string>;
        try {
          unknown = await this.users.ensure([...new Set(notLoaded.map((p) => p.userId))]);
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
}
