// What survives a reload (SPEC section 3): token, username, email, role and the language.
import { DEFAULT_LANGUAGE, Language, Role } from '@omc/contracts';

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
}

export function loadLanguage(): Language {
  const stored = Language.safeParse(read(KEYS.language));
  return stored.success ? stored.data : DEFAULT_LANGUAGE;
}

export function saveLanguage(language: Language): void {
  write(KEYS.language, language);
}
