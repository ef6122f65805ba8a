// Signing in, and the ways of leaving the session here: logging out, expiring, going on as a guest.
// Each leaves a message (a translation key) and guest mode or not, as the client contract says.
import type { Language } from '@omc/contracts';
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { authApi } from '../api/auth';
import { queryKeys } from '../api/keys';
import { applyLanguage } from '../i18n';
import type { StoredIdentity } from './storage';

const EMPTY: StoredIdentity = { token: null, username: null, email: null, role: null };

export function useSignInOut(
  token: string | null,
  store: (identity: StoredIdentity) => void,
  adoptToken: (token: string) => void,
  setRefreshing: (refreshing: boolean) => void,
) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [isGuest, setIsGuest] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [suspension, setSuspension] = useState<string | null>(null);

  /** Signed out here: the identity and the profile cleared, then guest mode or not, `note`, and `path`. */
  const leave = useCallback(
    (guest: boolean, note: string | null, path: string, replace?: boolean) => {
      store(EMPTY);
      setRefreshing(false);
      queryClient.removeQueries({ queryKey: queryKeys.profileAll });
      setIsGuest(guest);
      setMessage(note);
      navigate(path, { replace });
    },
    [queryClient, store, setRefreshing, navigate],
  );

  const logout = useCallback(() => {
    // The server ends the session (cookie and token); a failure there must not keep the user signed in.
    authApi.logout(token).catch((error: unknown) => console.warn('logout call failed', error));
    leave(true, 'session.loggedOut', '/');
  }, [leave, token]);

  const expire = useCallback(() => leave(false, 'session.expired', '/', true), [leave]);

  const continueAsGuest = useCallback(() => leave(true, null, '/game'), [leave]);

  const signIn = useCallback(
    (token: string, kind: 'login' | 'register', preferredLanguage?: Language) => {
      setSuspension(null);
      adoptToken(token);
      setIsGuest(false);
      setMessage(kind === 'login' ? 'session.loggedIn' : 'session.registered');
      if (preferredLanguage) void applyLanguage(preferredLanguage);
      void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
    },
    [queryClient, adoptToken],
  );

  return {
    isGuest,
    message,
    setMessage,
    suspension,
    setSuspension,
    leave,
    logout,
    expire,
    continueAsGuest,
    signIn,
  };
}
