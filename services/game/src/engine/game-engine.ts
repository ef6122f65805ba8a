// The round engine: the click path (click-batcher.ts) over the round's parts, which openRound makes once
// per app and the services above it share: the Redis scripts (redis-commands.ts), the round state and
// its rebuild (round-state.ts) and win writes (win-writer.ts). The users in play (players/) and purchases
// (purchases/) are built on the same parts in context.ts. Postgres is brought up to date by the journal
// flusher (journal/). Each Redis script and the decoder of its reply live side by side: the round's in
// redis/, the players' and purchases' beside their services (*.scripts.ts); docs/game.md shows the data model.
import type { Redis } from '@omc/service-kit';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Database } from '../db/schema.js';
import { ClickBatcher } from './click-batcher.js';
import { gameRedis, type GameRedis } from './redis-commands.js';
import { RoundState, type StaleState } from './round-state.js';
import type { ClickOutcome, EngineHooks, HotState, UserLoader } from './types.js';
import { WinWriter } from './win-writer.js';

export type { ClickOutcome, EngineHooks, HotState, UserLoader, UserView } from './types.js';

/** The round's parts: every Redis step and Postgres record of the game goes through these. */
export interface Round {
  scripts: GameRedis;
  state: RoundState;
  wins: WinWriter;
}

/** The round's parts for one app: one round state (one rebuild at a time) and one win writer. */
export function openRound(db: Kysely<Database>, redis: Redis, log: Logger, hooks: EngineHooks): Round {
  const scripts = gameRedis(redis);
  const wins = new WinWriter(db, log, hooks, (win) => {
    // Two wins of one round: the Redis that decided the second one went back behind Postgres.
    if (win.epoch)
      void state
        .replaceStale({ epoch: win.epoch, reason: `round ${win.round} won twice`, proven: true })
        .catch((error: unknown) => log.error({ err: error }, 'rebuilding a stale Redis state failed'));
  });
  const state = new RoundState(db, redis, scripts, wins, log, hooks);
  return { scripts, state, wins };
}

export class GameEngine {
  /** The click path; its queue is every click waiting for Redis. */
  readonly clicks: ClickBatcher;
  private readonly state: RoundState;
  private readonly wins: WinWriter;

  constructor(
    round: Round,
    users: UserLoader,
    config: Config,
    log: Logger,
    clock: () => number,
    hooks: EngineHooks = {},
  ) {
    this.state = round.state;
    this.wins = round.wins;
    this.clicks = new ClickBatcher(round.scripts, round.state, users, round.wins, config, log, clock, hooks);
  }

  /** Queues one click; it goes to Redis with the others that arrive meanwhile. */
  click(userId: string, address = '', securityVersion = 0): Promise<ClickOutcome> {
    return this.clicks.click(userId, address, securityVersion);
  }

  /** The round state as Redis holds it now (rebuilt from Postgres first if Redis lost it). */
  readState(): Promise<HotState> {
    return this.state.read();
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

  /** Stops taking clicks and waits for what is under way. */
  async close(): Promise<void> {
    await this.clicks.close();
    await this.wins.close();
  }
}
