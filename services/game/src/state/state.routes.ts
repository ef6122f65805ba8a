import { centsToEuros, GameProfile, GameRules, GameStateResponse, PACKS, packView } from '@omc/contracts';
import { authenticate, notFound } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { GameContext } from '../context.js';

export async function stateRoutes(app: FastifyInstance, { deps, engine, users }: GameContext): Promise<void> {
  const { config } = deps;
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get('/api/game/state', { schema: { response: { 200: GameStateResponse } } }, async () => {
    // The whole state for everyone: the interface, not the server, hides the pot and names from guests.
    const state = await engine.readState();
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

  await app.register(async (signedIn) => {
    signedIn.addHook('onRequest', authenticate);
    signedIn
      .withTypeProvider<ZodTypeProvider>()
      .get('/api/game/profile', { schema: { response: { 200: GameProfile } } }, async (request) => {
        const view = await users.view(request.user.sub);
        if (!view) throw notFound('Your account is not known to the game yet; try again in a moment');
        return view;
      });
  });
}
