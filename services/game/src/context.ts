// What the routes of the game share, in its own module so app.ts and the routes it registers do not
// import each other.
import type { Deps } from './deps.js';
import type { GameEngine } from './engine/game-engine.js';
import type { GameMetrics } from './metrics.js';
import type { PlayersService } from './players/players.service.js';
import type { EndedSessions } from './users/ended-sessions.js';

/**
 * What the routes of this app share: the dependencies, the engine, the players service, the service's
 * metrics and the sessions their owners ended (whose tokens the signed-in routes refuse).
 */
export interface GameContext {
  deps: Deps;
  engine: GameEngine;
  players: PlayersService;
  metrics: GameMetrics;
  endedSessions: EndedSessions;
}
