// The operator's calls: finding a player, suspending and restoring, the audit log.
import { AdminUsersPage, AuditPage, SuspensionResponse } from '@omc/contracts';
import { request } from './http';

const search = (params: Record<string, string | number | undefined>) => {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== '') query.set(name, String(value));
  return query.toString();
};

export const PLAYERS_PAGE = 25;

export const adminApi = {
  players: (token: string, params: { query?: string; cursor?: string }) =>
    request(`/api/admin/users?${search({ ...params, limit: PLAYERS_PAGE })}`, AdminUsersPage, { token }),
  suspend: (token: string, id: string, reason: string) =>
    request(`/api/admin/users/${encodeURIComponent(id)}/suspend`, SuspensionResponse, {
      method: 'POST',
      token,
      body: { reason },
    }),
  restore: (token: string, id: string, reason: string) =>
    request(`/api/admin/users/${encodeURIComponent(id)}/restore`, SuspensionResponse, {
      method: 'POST',
      token,
      body: { reason },
    }),
  audit: (token: string, params: { targetId?: string; cursor?: string }) =>
    request(`/api/admin/audit?${search({ ...params, limit: 50 })}`, AuditPage, { token }),
};
