// The operator's calls (finding a player, suspending and restoring, the audit log), through the typed
// client of packages/client: inputs typed by the request schemas, answers parsed by the response ones.
import { createClient, operations } from '@omc/client';
import type { AdminUsersPage } from '@omc/contracts';

export const PLAYERS_PAGE = 25;

const clientFor = (token: string) => createClient({ token: () => token });

export const adminApi = {
  players: async (token: string, query: { query?: string; cursor?: string }): Promise<AdminUsersPage> => {
    const answer = await clientFor(token).call(operations.adminUsers, {
      query: { ...query, limit: PLAYERS_PAGE },
    });
    // With a limit the server always answers a page.
    return 'nextCursor' in answer ? answer : { users: [], nextCursor: null };
  },
  suspend: (token: string, id: string, reason: string) =>
    clientFor(token).call(operations.suspendUser, { params: { id }, body: { reason } }),
  restore: (token: string, id: string, reason: string) =>
    clientFor(token).call(operations.restoreUser, { params: { id }, body: { reason } }),
  audit: (token: string, query: { targetId?: string; cursor?: string }) =>
    clientFor(token).call(operations.audit, { query: { ...query, limit: 50 } }),
};
