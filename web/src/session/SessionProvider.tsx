// The session of the client contract: anonymous, authenticated or guest; restored from local storage,
// refreshed 5 minutes before the token expires, logged out when the refresh fails.
import type { Language, ProfileResponse } from '@omc/contracts';
import { createContext, useContext, useMemo, useState, type ReactNode } from 'react';
import type { StoredIdentity } from './storage';
import { isExpired, refreshDelay } from './token';
import { useServerEndings } from './useServerEndings';
import { useSignInOut } from './useSignInOut';
import { useStoredIdentity } from './useStoredIdentity';
import { useTokenRefresh } from './useTokenRefresh';

export interface Session extends StoredIdentity {
  isGuest: boolean;
  /** Translation key of the latest session message (signed in, signed out...). */
  message: string | null;
  /** A refresh is in flight: an expired token may be about to be replaced. */
  refreshing: boolean;
  /** The server's answer when an operator suspended the account (it carries their reason); null otherwise. */
  suspension: string | null;
  signIn(token: string, kind: 'login' | 'register', preferredLanguage?: Language): void;
  continueAsGuest(): void;
  logout(): void;
  /** Clears an expired session without entering guest mode (the client contract: sent to the welcome screen). */
  expire(): void;
  updateIdentity(profile: Pick<ProfileResponse, 'username' | 'email' | 'role'>): void;
  /** Keeps the session with the token a security change handed back (the earlier one no longer counts). */
  replaceToken(token: string): void;
  clearMessage(): void;
}

const SessionContext = createContext<Session | null>(null);

export function SessionProvider({
  children,
  now = () => Date.now(),
}: {
  children: ReactNode;
  now?: () => number;
}) {
  const { identity, store, adoptToken, updateIdentity, replaceToken } = useStoredIdentity();
  const [refreshing, setRefreshing] = useState(
    () => identity.token !== null && refreshDelay(identity.token, now()) === 0,
  );
  const {
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
  } = useSignInOut(identity.token, store, adoptToken, setRefreshing);
  useServerEndings(identity.token, leave, setSuspension);
  useTokenRefresh(identity.token, now, adoptToken, setRefreshing, expire, logout);

  const value = useMemo<Session>(
    () => ({
      ...identity,
      isGuest,
      message,
      refreshing,
      suspension,
      signIn,
      continueAsGuest,
      logout,
      expire,
      updateIdentity,
      replaceToken,
      clearMessage: () => {
        setMessage(null);
        setSuspension(null);
      },
    }),
    [
      identity,
      isGuest,
      message,
      refreshing,
      suspension,
      signIn,
      continueAsGuest,
      logout,
      expire,
      updateIdentity,
      replaceToken,
    ],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}

export { isExpired };
