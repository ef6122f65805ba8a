// Route guards of the client contract.
import { useEffect, type ReactNode } from 'react';
import { Navigate } from 'react-router-dom';
import { useSession } from '../session/SessionProvider';
import { isExpired } from '../session/token';

/** `/`: a user with a token, or a guest, goes straight to the game. */
export function WelcomeRoute({ children }: { children: ReactNode }) {
  const { token, isGuest } = useSession();
  if (token || isGuest) return <Navigate to="/game" replace />;
  return <>{children}</>;
}

/** `/game`: no token and not a guest, or an expired token, clears the session and goes to `/`. */
export function GameRoute({ children, now = Date.now }: { children: ReactNode; now?: () => number }) {
  const { token, isGuest, refreshing, expire } = useSession();
  const expired = token !== null && !refreshing && isExpired(token, now());
  useEffect(() => {
    if (expired) expire();
  }, [expired, expire]);
  if (expired) return null;
  if (!token && !isGuest) return <Navigate to="/" replace />;
  return <>{children}</>;
}

/** `/profile` needs a token. */
export function RequireToken({ children }: { children: ReactNode }) {
  const { token } = useSession();
  if (!token) return <Navigate to="/" replace />;
  return <>{children}</>;
}

/** `/admin/roles` is for admins only. */
export function RequireAdmin({ children }: { children: ReactNode }) {
  const { token, role } = useSession();
  if (!token || role !== 'admin') return <Navigate to="/" replace />;
  return <>{children}</>;
}
