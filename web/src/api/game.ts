import { ClickResponse, GameRules, GameStateResponse, WinnersResponse } from '@omc/contracts';
import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { request } from './http';
import { markServerData } from './generations';
import { queryKeys } from './keys';

export const gameApi = {
  state: (token: string | null) => request('/api/game/state', GameStateResponse, { token }),
  rules: () => request('/api/game/rules', GameRules),
  click: (token: string) => request('/api/game/click', ClickResponse, { method: 'POST', token }),
  winners: (cursor?: string) =>
    request(`/api/winners${cursor ? `?cursor=${encodeURIComponent(cursor)}` : ''}`, WinnersResponse),
};

export const gameStateQuery = (token: string | null) =>
  queryOptions({
    queryKey: queryKeys.gameState,
    queryFn: async () => {
      const { gameState } = await gameApi.state(token);
      markServerData('gameState');
      return gameState;
    },
  });

export const gameRulesQuery = () =>
  queryOptions({ queryKey: queryKeys.gameRules, queryFn: gameApi.rules, staleTime: 5 * 60_000 });

export const winnersQuery = () =>
  infiniteQueryOptions({
    queryKey: queryKeys.winners,
    queryFn: ({ pageParam }) => gameApi.winners(pageParam),
    initialPageParam: undefined as string | undefined,
    getNextPageParam: (last) => last.nextCursor ?? undefined,
  });
