import { infiniteQueryOptions, queryOptions } from '@tanstack/react-query';
import { api, operations } from './http';
import { markServerData } from './generations';
import { queryKeys } from './keys';

export const gameApi = {
  state: (token: string | null) => api.call(operations.gameState, { token }),
  rules: () => api.call(operations.rules),
  click: (token: string) => api.call(operations.click, { token }),
  winners: (cursor?: string) => api.call(operations.winners, { query: { cursor } }),
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
