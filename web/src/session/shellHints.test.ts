// The two cookies that tell the gateway which first screen to send (docs/web.md): they follow what is
// stored, and carry nothing but the language and whether a session is stored.
import { afterEach, describe, expect, it } from 'vitest';
import { saveIdentity, saveLanguage, syncShellHints } from './storage';

const cookies = () =>
  Object.fromEntries(
    document.cookie
      .split(';')
      .map((c) => c.trim())
      .filter(Boolean)
      .map((c) => c.split('=') as [string, string]),
  );

afterEach(() => {
  document.cookie = 'omc_lang=; Path=/; Max-Age=0';
  document.cookie = 'omc_signed_in=; Path=/; Max-Age=0';
});

describe('first-screen hints', () => {
  it('name the stored language, Spanish when none is stored', () => {
    syncShellHints();
    expect(cookies().omc_lang).toBe('es');
    saveLanguage('fr');
    expect(cookies().omc_lang).toBe('fr');
  });

  it('say a session is stored while a token is, and nothing else about it', () => {
    saveIdentity({ token: 'a.b.c', username: 'ana', email: 'ana@example.com', role: 'standard' });
    expect(cookies().omc_signed_in).toBe('1');
    expect(document.cookie).not.toContain('a.b.c');
    expect(document.cookie).not.toContain('ana');
    saveIdentity({ token: null, username: null, email: null, role: null });
    expect(cookies().omc_signed_in).toBeUndefined();
  });
});
