import { centsToEuros, WinnersQuery, WinnersResponse } from '@omc/contracts';
import { badRequest } from '@omc/service-kit';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { GameContext } from '../context.js';
import { listWinners } from '../engine/game.repo.js';

const encodeCursor = (round: number) => Buffer.from(`r${round}`).toString('base64url');

function decodeCursor(cursor: string): number {
  const match = /^r(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!match) throw badRequest('cursor: not a cursor this service gave', 'cursor');
  return Number(match[1]);
}

export async function winnersRoutes(app: FastifyInstance, { deps }: GameContext): Promise<void> {
  app
    .withTypeProvider<ZodTypeProvider>()
    .get(
      '/api/winners',
      { schema: { querystring: WinnersQuery, response: { 200: WinnersResponse } } },
      async (request) => {
        const { limit, cursor } = request.query;
        const rows = await listWinners(
          deps.db,
          limit + 1,
          cursor === undefined ? undefined : decodeCursor(cursor),
        );
        const page = rows.slice(0, limit);
        return {
          winners: page.map((w) => ({
            _id: w.id,
            userId: w.username === null ? null : { username: w.username },
            pot: centsToEuros(w.potCents),
            createdAt: w.wonAt.toISOString(),
            round: w.round,
          })),
          nextCursor: rows.length > limit ? encodeCursor(page[page.length - 1]!.round) : null,
        };
      },
    );
}
