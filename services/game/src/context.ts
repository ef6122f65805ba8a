// What the routes of the game share, in its own module so app.ts and the routes it registers do not
// import each other; and the game's services, built here once each with what they use passed in.
import type { Deps } from './deps.js';
import { GameEngine, openRound, type EngineHooks } from './engine/game-engine.js';
import type { GameMetrics } from './metrics.js';
import { PlayersService } from './players/players.service.js';
import { UsersInPlay } from './players/users-in-play.js';
import { PurchasesService } from './purchases/purchases.service.js';
import type { EndedSessions } from './players/ended-sessions.js';

/**
 * The game's services: the engine (the click path and the round's state), the users in play, purchases
 * and the players service (auth's changes to a player). The last three share the engine's round parts.
 */
export interface GameServices {
  engine: GameEngine;
  users: UsersInPlay;
  purchases: PurchasesService;
  players: PlayersService;
}

/**
 * What the routes of this app share: the dependencies, the game's services, the service's metrics and
 * the sessions their owners ended (whose tokens the signed-in routes refuse).
 */
export interface GameContext extends GameServices {
  deps: Deps;
  metrics: GameMetrics;
  endedSessions: EndedSessions;
}

/** Builds the game's services on one set of round parts; `hooks` tells the app what they do. */
export function buildGameServices(deps: Deps, hooks: EngineHooks): GameServices {
  const { db, redis, config, log, clock } = deps;
  const round = openRound(db, redis, log, hooks);
  const users = new UsersInPlay(db, redis, round.scripts, round.state, clock, hooks);
  return {
    engine: new GameEngine(round, users, config, log, clock, hooks),
    users,
    purchases: new PurchasesService(db, round.scripts, round.state, users, hooks),
    players: new PlayersService(db, users, config),
  };
}

/** Stops taking clicks and waits for what is under way (batches, win writes). */
export async function closeGameServices({ engine }: GameServices): Promise<void> {
  await engine.close();
}
