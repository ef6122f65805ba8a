import {
  centsToEuros,
  ERROR_CODE,
  ErrorBody,
  errorBody,
  WinnersQuery,
  WinnersResponse,
} from '@omc/contracts';
import { badRequest } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { GameContext } from '../context.js';
import { listWinners } from './winners.repo.js';
import { LastGoodPages } from './last-good.js';

const encodeCursor = (round: number) => Buffer.from(`r${round}`).toString('base64url');

function decodeCursor(cursor: string): number {
  const match = /^r(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw badRequest('cursor: not a cursor this service gave', 'cursor');
  return Number(match[1]);
}

/** When a pod that never read the list asks the client to try again, in seconds. */
const RETRY_AFTER_S = 5;

export async function winnersRoutes(app: FastifyInstance, { deps }: GameContext): Promise<void> {
  // Per pod: the list stays up through a Postgres stall, as the last good answer read (last-good.ts).
  const lastGood = new LastGoodPages<WinnersResponse>(deps.config.WINNERS_READ_TIMEOUT_MS);
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      '/api/winners',
      { schema: { querystring: WinnersQuery, response: { 200: WinnersResponse, 503: ErrorBody } } },
      async (request, reply) => {
        const { limit, cursor } = request.query;
        const beforeRound = cursor === undefined ? undefined : decodeCursor(cursor);
        const page = await lastGood.get(`${limit}:${beforeRound ?? ''}`, async () => {
          const rows = await listWinners(deps.db, limit + 1, beforeRound);
          const shown = rows.slice(0, limit);
          return {
            winners: shown.map((w) => ({
              _id: w.id,
              userId: w.username === null ? null : { username: w.username },
              pot: centsToEuros(w.potCents),
              createdAt: w.wonAt.toISOString(),
              round: w.round,
            })),
            nextCursor: rows.length > limit ? encodeCursor(shown[shown.length - 1]!.round) : null,
          };
        });
        if (page !== undefined) return page;
        return reply
          .code(503)
          .header('retry-after', String(RETRY_AFTER_S))
          .header('cache-control', 'no-store')
          .send(
            errorBody('The winners list is unavailable for a moment; try again shortly', {
              code: ERROR_CODE.UNAVAILABLE,
              requestId: request.id,
            }),
          );
      },
    );
}
