// The operator's calls: finding a player, suspending and restoring, the audit log.
import type { AdminUsersPage } from '@omc/contracts';
import { api, operations } from './http';

export const PLAYERS_PAGE = 25;

export const adminApi = {
  players: async (token: string, query: { query?: string; cursor?: string }): Promise<AdminUsersPage> => {
    const answer = await api.call(operations.adminUsers, { token, query: { ...query, limit: PLAYERS_PAGE } });
    // With a limit the server always answers a page.
    return 'nextCursor' in answer ? answer : { users: [], nextCursor: null };
  },
  suspend: (token: string, id: string, reason: string) =>
    api.call(operations.suspendUser, { token, params: { id }, body: { reason } }),
  restore: (token: string, id: string, reason: string) =>
    api.call(operations.restoreUser, { token, params: { id }, body: { reason } }),
  audit: (token: string, query: { targetId?: string; cursor?: string }) =>
    api.call(operations.audit, { token, query: { ...query, limit: 50 } }),
};
