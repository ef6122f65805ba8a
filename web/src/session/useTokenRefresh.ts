// Token refresh: 5 minutes before exp, at once when that has passed; a failure logs out, or, for a token
// already expired, clears the session as on /game (docs/client-contract.md).
import { useEffect, useRef } from 'react';
import { authApi } from '../api/auth';
import { isSuspension } from './refusals';
import { isExpired, refreshDelay } from './token';

export function useTokenRefresh(
  token: string | null,
  now: () => number,
  adoptToken: (token: string) => void,
  setRefreshing: (refreshing: boolean) => void,
  expire: () => void,
  logout: () => void,
): void {
  const logoutRef = useRef(logout);
  logoutRef.current = logout;
  const expireRef = useRef(expire);
  expireRef.current = expire;
  useEffect(() => {
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
            adoptToken(fresh);
          })
          .catch((error: unknown) => {
            if (cancelled || isSuspension(error)) return;
            console.warn('token refresh failed', error);
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
  }, [token, now, adoptToken, setRefreshing]);
}
