// The session of the client contract: anonymous, authenticated or guest; restored from local storage,
// refreshed 5 minutes before the token expires, logged out when the refresh fails.
import type { Language, ProfileResponse, Role } from '@omc/contracts';
import { useQueryClient } from '@tanstack/react-query';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
  type ReactNode,
} from 'react';
import { useNavigate } from 'react-router-dom';
import { authApi } from '../api/auth';
import { queryKeys } from '../api/keys';
import { applyLanguage } from '../i18n';
import { loadIdentity, saveIdentity, type StoredIdentity } from './storage';
import { isSuspension, onSessionEnded, onSuspension } from './refusals';
import { decodeToken, isExpired, refreshDelay } from './token';

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

const EMPTY: StoredIdentity = { token: null, username: null, email: null, role: null };

function identityFromToken(token: string, previous: StoredIdentity): StoredIdentity {
  const claims = decodeToken(token);
  const sameUser = claims?.username !== undefined && claims.username === previous.username;
  return {
    token,
    username: claims?.username ?? previous.username,
    email: sameUser ? previous.email : null,
    role: (claims?.role as Role | undefined) ?? previous.role,
  };
}

export function SessionProvider({
  children,
  now = () => Date.now(),
}: {
  children: ReactNode;
  now?: () => number;
}) {
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [identity, setIdentity] = useState<StoredIdentity>(loadIdentity);
  const [isGuest, setIsGuest] = useState(false);
  const [message, setMessage] = useState<string | null>(null);
  const [suspension, setSuspension] = useState<string | null>(null);
  const [refreshing, setRefreshing] = useState(
    () => identity.token !== null && refreshDelay(identity.token, now()) === 0,
  );

  const store = useCallback((next: StoredIdentity) => {
    saveIdentity(next);
    setIdentity(next);
  }, []);

  const clear = useCallback(() => {
    store(EMPTY);
    setRefreshing(false);
    queryClient.removeQueries({ queryKey: queryKeys.profileAll });
  }, [queryClient, store]);

  const logout = useCallback(() => {
    // The server ends the session (cookie and token); a failure there must not keep the user signed in.
    authApi.logout(identity.token).catch((error: unknown) => console.warn('logout call failed', error));
    clear();
    setIsGuest(true);
    setMessage('session.loggedOut');
    navigate('/');
  }, [clear, navigate, identity.token]);

  const expire = useCallback(() => {
    clear();
    setIsGuest(false);
    setMessage('session.expired');
    navigate('/', { replace: true });
  }, [clear, navigate]);

  // Suspended: signed out here at once (the server already ended every session, so no logout call), the
  // reason shown until dismissed; no request that needs the token is made again, so nothing retries.
  useEffect(
    () =>
      onSuspension((serverMessage) => {
        clear();
        setIsGuest(false);
        setMessage(null);
        setSuspension(serverMessage);
        navigate('/', { replace: true });
      }),
    [clear, navigate],
  );

  // Ended by the server (signed out elsewhere, a security change): signed out here too, on whichever
  // call noticed it. A refusal of a token this browser has since replaced changes nothing.
  const tokenRef = useRef(identity.token);
  tokenRef.current = identity.token;
  useEffect(
    () =>
      onSessionEnded((token) => {
        if (token === undefined || token !== tokenRef.current) return;
        clear();
        setIsGuest(false);
        setMessage('session.ended');
        navigate('/', { replace: true });
      }),
    [clear, navigate],
  );

  const signIn = useCallback(
    (token: string, kind: 'login' | 'register', preferredLanguage?: Language) => {
      setSuspension(null);
      setIdentity((previous) => {
        const next = identityFromToken(token, previous);
        saveIdentity(next);
        return next;
      });
      setIsGuest(false);
      setMessage(kind === 'login' ? 'session.loggedIn' : 'session.registered');
      if (preferredLanguage) void applyLanguage(preferredLanguage);
      void queryClient.invalidateQueries({ queryKey: queryKeys.profileAll });
    },
    [queryClient],
  );

  const continueAsGuest = useCallback(() => {
    clear();
    setIsGuest(true);
    setMessage(null);
    navigate('/game');
  }, [clear, navigate]);

  const updateIdentity = useCallback((profile: Pick<ProfileResponse, 'username' | 'email' | 'role'>) => {
    setIdentity((previous) => {
      if (!previous.token) return previous;
      const next = { ...previous, username: profile.username, email: profile.email, role: profile.role };
      if (next.username === previous.username && next.email === previous.email && next.role === previous.role)
        return previous;
      saveIdentity(next);
      return next;
    });
  }, []);

  const replaceToken = useCallback((token: string) => {
    setIdentity((previous) => {
      if (!previous.token) return previous;
      const next = { ...previous, token };
      saveIdentity(next);
      return next;
    });
  }, []);

  // Token refresh: 5 minutes before exp, at once when that has passed; a failure logs out.
  const logoutRef = useRef(logout);
  logoutRef.current = logout;
  const expireRef = useRef(expire);
  expireRef.current = expire;
  useEffect(() => {
    const token = identity.token;
    if (!token) return;
    let cancelled = false;
    const timer = setTimeout(
      () => {
        setRefreshing(true);
        authApi
          .refresh()
          .then(({ token: fresh }) => {
            if (cancelled) return;
            setRefreshing(false);
            setIdentity((previous) => {
              const next = identityFromToken(fresh, previous);
              saveIdentity(next);
              return next;
            });
          })
          .catch((error: unknown) => {
            if (cancelled || isSuspension(error)) return;
            console.warn('token refresh failed', error);
            // A token that has already expired is cleared as on /game (docs/client-contract.md); a live one logs out.
            if (isExpired(token, now())) expireRef.current();
            else logoutRef.current();
          });
      },
      refreshDelay(token, now()),
    );
    return () => {
      cancelled = true;
      clearTimeout(timer);
    };
  }, [identity.token, now]);

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
