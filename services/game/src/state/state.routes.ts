import { centsToEuros, GameProfile, GameRules, GameStateResponse, PACKS, packView } from '@omc/contracts';
import { notFound, optionalUser, requireUser } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import type { GameEngine } from '../engine/game-engine.js';

export async function stateRoutes(app: FastifyInstance, engine: GameEngine, config: Config): Promise<void> {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get('/api/game/state', { schema: { response: { 200: GameStateResponse } } }, async (request) => {
    // A token is optional but, when sent, must be valid (a bad one is a 401, not a silent guest).
    await optionalUser(request);
    const state = await engine.readState();
    // The whole state to everyone (SPEC section 3); the interface hides what a guest may not see.
    return {
      gameState: {
        globalClicks: state.globalClicks,
        pot: centsToEuros(state.potCents),
        lastWinner: state.lastWinner,
        lastClickUser: state.lastClickUser,
      },
    };
  });

  const rules = GameRules.parse({
    roundTarget: config.ROUND_TARGET,
    milestones: [
      ...config.MILESTONES.map((m) => ({ at: m.at, freeClicks: m.freeClicks })),
      { at: config.ROUND_TARGET, winsPot: true },
    ],
    packs: PACKS.map(packView),
  });
  routes.get('/api/game/rules', { schema: { response: { 200: GameRules } } }, async () => rules);

  routes.get('/api/game/profile', { schema: { response: { 200: GameProfile } } }, async (request) => {
    const claims = await requireUser(request);
    const view = await engine.userView(claims.sub);
    if (!view) throw notFound('Your account is not known to the game yet; try again in a moment');
    return view;
  });
}
