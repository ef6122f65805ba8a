// The game's record of won rounds, for payments: it credits a win only as recorded here (an event on the
// bus alone moves no money) and asks for the wins it may have missed. Not reachable through the gateway
// (no public prefix is /internal); payments alone may call it (NetworkPolicy). Read-only.
import { INTERNAL_WINS_PATH, InternalWin, InternalWinsQuery, InternalWinsResponse } from '@omc/contracts';
import { notFound } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { GameContext } from '../context.js';
import { recordedWins } from './winners.repo.js';

export async function internalWinsRoutes(scope: FastifyInstance, { deps }: GameContext): Promise<void> {
  const app = scope.withTypeProvider<ZodTypeProvider>();
  app.get(
    `${INTERNAL_WINS_PATH}/:round`,
    {
      schema: {
        params: z.object({ round: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) }),
        response: { 200: InternalWin },
      },
    },
    async (request) => {
      const [win] = await recordedWins(deps.db, { round: request.params.round });
      if (!win) throw notFound(`Round ${request.params.round} has no recorded win`);
      return win;
    },
  );
  app.get(
    INTERNAL_WINS_PATH,
    { schema: { querystring: InternalWinsQuery, response: { 200: InternalWinsResponse } } },
    async (request) => {
      const { since, afterRound, limit } = request.query;
      return { wins: await recordedWins(deps.db, { since: new Date(since), afterRound, limit }) };
    },
  );
}
