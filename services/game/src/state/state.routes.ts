import { GameStateResponse } from '@omc/contracts';
import { optionalUser } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { Deps } from '../deps.js';

export async function stateRoutes(app: FastifyInstance, _deps: Deps): Promise<void> {
  app.get('/api/game/state', { schema: { response: { 200: GameStateResponse } } }, async (request) => {
    const user = await optionalUser(request);
    // Placeholder until the round engine lands.
    return user
      ? { gameState: { globalClicks: 0, pot: 0, lastWinner: null, lastClickUser: null } }
      : { gameState: { globalClicks: 0 } };
  });
}
