import type { Language } from '@omc/contracts';
import { queryOptions } from '@tanstack/react-query';
import { api, operations } from './http';
import { markServerData } from './generations';
import { profileRead, purchasePollMs } from './purchaseWatch';
import { queryKeys } from './keys';

export const authApi = {
  login: (body: { emailOrUsername: string; password: string }) => api.call(operations.login, { body }),
  register: (body: { username: string; email: string; password: string; preferredLanguage?: Language }) =>
    api.call(operations.register, { body }),
  /** Sends only the refresh cookie, never the access token. */
  refresh: () => api.call(operations.refresh),
  /** With the access token when there is one: the session ends even if the cookie is gone. */
  logout: (token: string | null) => api.call(operations.logout, { token }),
  profile: (token: string) => api.call(operations.profile, { token }),
  changeLanguage: (token: string, language: Language) =>
    api.call(operations.changeLanguage, { token, body: { language } }),
  /** `currentPassword` proves the owner (auth asks for it unless the sign-in is a few minutes old). */
  changeEmail: (token: string, body: { email: string; currentPassword?: string }) =>
    api.call(operations.changeEmail, { token, body }),
  /** Every earlier token ends with the change: the answer carries this browser's next one. */
  changePassword: (token: string, body: { currentPassword: string; newPassword: string }) =>
    api.call(operations.changePassword, { token, body }),
  changeUsername: (token: string, username: string) =>
    api.call(operations.changeUsername, { token, body: { username } }),
  deleteAccount: (token: string) => api.call(operations.deleteAccount, { token }),
  forgotPassword: (email: string) => api.call(operations.forgotPassword, { body: { email } }),
  resetPassword: (body: { token: string; newPassword: string }) =>
    api.call(operations.resetPassword, { body }),
  verifyEmail: (token: string, session: string | null) =>
    api.call(operations.verifyEmail, { token: session, body: { token } }),
  /** The token from the link mailed to the new address; `session` when signed in. */
  confirmEmail: (token: string, session: string | null) =>
    api.call(operations.confirmEmail, { token: session, body: { token } }),
  /** The token from the notice mailed to the old address: restores it and ends every session. */
  undoEmailChange: (token: string, session: string | null) =>
    api.call(operations.undoEmailChange, { token: session, body: { token } }),
  resendVerification: (token: string) => api.call(operations.resendVerification, { token }),
  sessions: (token: string) => api.call(operations.sessions, { token }),
  endSession: (token: string, id: string) => api.call(operations.endSession, { token, params: { id } }),
  /** Every earlier token ends, this browser's too: the answer carries its next one. */
  endOtherSessions: (token: string) => api.call(operations.endOtherSessions, { token }),
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
    // being due to bring it. After the player's own purchase, read again until it shows (a late event).
    refetchInterval: (query) =>
      query.state.data?.freeClicks === null ? gamePartRetryMs() : purchasePollMs(),
  });

export const sessionsQuery = (token: string | null) =>
  queryOptions({
    queryKey: ['sessions', token] as const,
    queryFn: () => authApi.sessions(token!),
    enabled: Boolean(token),
  });
