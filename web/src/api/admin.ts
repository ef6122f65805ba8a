// The operator's calls: finding a player, suspending and restoring, the audit log, roles and the admin
// pot. Only the operator's screens (lazy) import this, so a player's first screen does not load it.
import type { AdminUsersPage, Role } from '@omc/contracts';
import { queryOptions } from '@tanstack/react-query';
import { api, operations } from './http';
import { queryKeys } from './keys';

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
  updateRole: (token: string, body: { email: string; role: Role; currentPassword?: string }) =>
    api.call(operations.updateRole, { token, body }),
  /** Opens a house payout request: another admin approves it before anything is paid. */
  collect: (token: string, currentPassword?: string) =>
    api.call(operations.adminCollect, { token, body: currentPassword ? { currentPassword } : {} }),
  approvals: (token: string) => api.call(operations.approvals, { token, query: { status: 'pending' } }),
  approve: (token: string, id: string, currentPassword?: string) =>
    api.call(operations.approveApproval, {
      token,
      params: { id },
      body: currentPassword ? { currentPassword } : {},
    }),
  refuse: (token: string, id: string) =>
    api.call(operations.refuseApproval, { token, params: { id }, body: {} }),
  /** The whole list, as the role manager reads it (no paging parameters: the original answer). */
  allUsers: (token: string) => api.call(operations.adminUsers, { token }),
};

export const adminUsersQuery = (token: string | null) =>
  queryOptions({
    queryKey: queryKeys.adminUsers,
    queryFn: () => adminApi.allUsers(token!),
    enabled: Boolean(token),
  });
