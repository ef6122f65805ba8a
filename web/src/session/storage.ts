// What survives a reload (docs/client-contract.md): token, username, email, role and the language.
import { DEFAULT_LANGUAGE, Language, Role, SHELL_COOKIES } from '@omc/contracts';

const KEYS = {
  token: 'token',
  username: 'username',
  email: 'email',
  role: 'role',
  language: 'language',
} as const;

export interface StoredIdentity {
  token: string | null;
  username: string | null;
  email: string | null;
  role: Role | null;
}

function read(key: string): string | null {
  try {
    return window.localStorage.getItem(key);
  } catch {
    return null;
  }
}

function write(key: string, value: string | null): void {
  try {
    if (value === null) window.localStorage.removeItem(key);
    else window.localStorage.setItem(key, value);
  } catch {
    // storage may be unavailable (private mode); the session then lives in memory only
  }
}

const YEAR_S = 365 * 24 * 3600;

/** A first-paint hint cookie for a year (null removes it): never a credential. */
export function writeCookie(name: string, value: string | null): void {
  try {
    document.cookie =
      value === null
        ? `${name}=; Path=/; Max-Age=0; SameSite=Lax`
        : `${name}=${value}; Path=/; Max-Age=${YEAR_S}; SameSite=Lax`;
  } catch {
    // no document (tests without one): the hints only choose the first screen the gateway sends
  }
}

/**
 * Mirrors the stored language, and whether a session is stored, into two cookies the gateway reads to
 * send the first screen already drawn in that language (the welcome screen, or the game's skeleton).
 * Hints for the first paint only: no token, nothing the server trusts.
 */
export function syncShellHints(): void {
  writeCookie(SHELL_COOKIES.language, loadLanguage());
  writeCookie(SHELL_COOKIES.signedIn, read(KEYS.token) ? '1' : null);
}

export function loadIdentity(): StoredIdentity {
  const role = Role.safeParse(read(KEYS.role));
  return {
    token: read(KEYS.token),
    username: read(KEYS.username),
    email: read(KEYS.email),
    role: role.success ? role.data : null,
  };
}

export function saveIdentity(identity: StoredIdentity): void {
  write(KEYS.token, identity.token);
  write(KEYS.username, identity.username);
  write(KEYS.email, identity.email);
  write(KEYS.role, identity.role);
  syncShellHints();
}

export function loadLanguage(): Language {
  const stored = Language.safeParse(read(KEYS.language));
  return stored.success ? stored.data : DEFAULT_LANGUAGE;
}

export function saveLanguage(language: Language): void {
  write(KEYS.language, language);
  syncShellHints();
}
