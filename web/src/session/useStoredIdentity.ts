// The signed-in identity, kept in local storage: every change to it is saved as it is made.
import type { ProfileResponse, Role } from '@omc/contracts';
import { useCallback, useState } from 'react';
import { loadIdentity, saveIdentity, type StoredIdentity } from './storage';
import { decodeToken } from './token';

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

export function useStoredIdentity() {
  const [identity, setIdentity] = useState<StoredIdentity>(loadIdentity);

  const store = useCallback((next: StoredIdentity) => {
    saveIdentity(next);
    setIdentity(next);
  }, []);

  /** A new token (a sign-in, a refresh): its claims, and the email while the user stays the same. */
  const adoptToken = useCallback((token: string) => {
    setIdentity((previous) => {
      const next = identityFromToken(token, previous);
      saveIdentity(next);
      return next;
    });
  }, []);

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

  return { identity, store, adoptToken, updateIdentity, replaceToken };
}
