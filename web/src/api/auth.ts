import {
  AdminUsersResponse,
  LoginResponse,
  MessageResponse,
  MessageWithTokenResponse,
  ProfileResponse,
  RefreshResponse,
  RegisterResponse,
  SessionsResponse,
  type Language,
  type Role,
} from '@omc/contracts';
import { queryOptions } from '@tanstack/react-query';
import { request } from './http';
import { markServerData } from './generations';
import { profileRead } from './purchaseWatch';
import { queryKeys } from './keys';

export const authApi = {
  login: (body: { emailOrUsername: string; password: string }) =>
    request('/api/user/login', LoginResponse, { method: 'POST', body, credentials: true }),
  register: (body: { username: string; email: string; password: string; preferredLanguage?: Language }) =>
    request('/api/user/register', RegisterResponse, { method: 'POST', body, credentials: true }),
  /** Sends only the refresh cookie, never the access token. */
  refresh: () => request('/api/user/refresh', RefreshResponse, { method: 'POST', credentials: true }),
  logout: () => request('/api/user/refresh/logout', MessageResponse, { method: 'POST', credentials: true }),
  profile: (token: string) => request('/api/user/profile', ProfileResponse, { token }),
  changeLanguage: (token: string, language: Language) =>
    request('/api/user/change-language', MessageResponse, { method: 'PUT', token, body: { language } }),
  /** `currentPassword` proves the owner (auth asks for it unless the sign-in is a few minutes old). */
  changeEmail: (token: string, body: { email: string; currentPassword?: string }) =>
    request('/api/user/change-email', MessageResponse, { method: 'PUT', token, body }),
  /** Every earlier token ends with the change: the answer carries this browser's next one. */
  changePassword: (token: string, body: { currentPassword: string; newPassword: string }) =>
    request('/api/user/change-password', MessageWithTokenResponse, { method: 'PUT', token, body }),
  changeUsername: (token: string, username: string) =>
    request('/api/user/change-username', MessageResponse, { method: 'PUT', token, body: { username } }),
  deleteAccount: (token: string) =>
    request('/api/user/delete-account', MessageResponse, { method: 'DELETE', token }),
  forgotPassword: (email: string) =>
    request('/api/user/forgot-password', MessageResponse, { method: 'POST', body: { email } }),
  resetPassword: (body: { token: string; newPassword: string }) =>
    request('/api/user/reset-password', MessageResponse, { method: 'POST', body }),
  verifyEmail: (token: string, session: string | null) =>
    request('/api/user/verify-email', MessageResponse, { method: 'POST', token: session, body: { token } }),
  /** The token from the link mailed to the new address; `session` when signed in. */
  confirmEmail: (token: string, session: string | null) =>
    request('/api/user/confirm-email', MessageResponse, { method: 'POST', token: session, body: { token } }),
  /** The token from the notice mailed to the old address: restores it and ends every session. */
  undoEmailChange: (token: string, session: string | null) =>
    request('/api/user/undo-email-change', MessageResponse, {
      method: 'POST',
      token: session,
      body: { token },
    }),
  resendVerification: (token: string) =>
    request('/api/user/resend-verification', MessageResponse, { method: 'POST', token }),
  sessions: (token: string) => request('/api/user/sessions', SessionsResponse, { token }),
  endSession: (token: string, id: string) =>
    request(`/api/user/sessions/${encodeURIComponent(id)}`, MessageResponse, { method: 'DELETE', token }),
  /** Every earlier token ends, this browser's too: the answer carries its next one. */
  endOtherSessions: (token: string) =>
    request('/api/user/sessions', MessageWithTokenResponse, { method: 'DELETE', token }),
  adminUsers: (token: string) => request('/api/admin/users', AdminUsersResponse, { token }),
  updateRole: (token: string, body: { email: string; role: Role }) =>
    request('/api/admin/updateRole', MessageResponse, { method: 'POST', token, body }),
};

/**
 * Since when the profile has come without the game's part (`freeClicks` null): a new account the game
 * has not heard of yet (it learns of a sign-up by event), or the game away. Null while it is there.
 */
let gamePartMissingSince: number | null = null;

/** How long to wait before reading a profile without the game's part again: 1 s, longer the longer it lasts (at most 30 s). */
function gamePartRetryMs(now = Date.now()): number {
  return Math.min(30_000, Math.max(1_000, (now - (gamePartMissingSince ?? now)) / 2));
}

export const profileQuery = (token: string | null) =>
  queryOptions({
    queryKey: queryKeys.profile(token),
    queryFn: async () => {
      const profile = await authApi.profile(token!);
      markServerData('profile');
      profileRead(profile);
      gamePartMissingSince = profile.freeClicks === null ? (gamePartMissingSince ?? Date.now()) : null;
      return profile;
    },
    enabled: Boolean(token),
    staleTime: 10_000,
    // Without the game's part the page has no balance to show: read again until it comes, no event
    // being due to bring it.
    refetchInterval: (query) => (query.state.data?.freeClicks === null ? gamePartRetryMs() : false),
  });

export const sessionsQuery = (token: string | null) =>
  queryOptions({
    queryKey: ['sessions', token] as const,
    queryFn: () => authApi.sessions(token!),
    enabled: Boolean(token),
  });

export const adminUsersQuery = (token: string | null) =>
  queryOptions({
    queryKey: queryKeys.adminUsers,
    queryFn: () => authApi.adminUsers(token!),
    enabled: Boolean(token),
  });
