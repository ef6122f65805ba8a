import { LANGUAGES } from '@omc/contracts';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { allTranslations } from '.';

const translations = await allTranslations();

function flatten(tree: Record<string, unknown>, prefix = ''): Record<string, string> {
  return Object.entries(tree).reduce<Record<string, string>>((out, [key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    if (value && typeof value === 'object')
      Object.assign(out, flatten(value as Record<string, unknown>, path));
    else out[path] = String(value);
    return out;
  }, {});
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'test' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

const src = join(__dirname, '..');
const spanish = flatten(translations.es);

describe('translations', () => {
  it.each(LANGUAGES)('%s has every key, none empty, with the same placeholders', (language) => {
    const keys = flatten(translations[language]);
    expect(Object.keys(keys).sort()).toEqual(Object.keys(spanish).sort());
    for (const [key, text] of Object.entries(keys)) {
      expect(text.trim(), `${language}: ${key}`).not.toBe('');
      const placeholders = (s: string) => [...s.matchAll(/{{\s*(\w+)/g)].map((m) => m[1]).sort();
      expect(placeholders(text), `${language}: ${key}`).toEqual(placeholders(spanish[key]!));
    }
  });

  // WCAG 2.5.3 (label in name): a speech-input user says what they see, so the click button's
  // accessible name must contain its visible "+1" in every language.
  it.each(LANGUAGES)("%s: the click button's accessible name contains its visible text", (language) => {
    const keys = flatten(translations[language]);
    expect(keys['game.clickButtonLabel']).toContain(keys['game.clickButton']);
  });

  it('knows every key the code asks for', () => {
    const used = new Set<string>();
    for (const file of sourceFiles(src)) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(/\bt\(\s*'([a-zA-Z0-9_.]+)'/g)) used.add(match[1]!);
      for (const match of text.matchAll(/(?:labelKey|key|message): '([a-zA-Z]+\.[a-zA-Z0-9_.]+)'/g))
        used.add(match[1]!);
      for (const match of text.matchAll(/setMessage\('([a-zA-Z]+\.[a-zA-Z0-9_.]+)'\)/g)) used.add(match[1]!);
    }
    // The validation functions of the contracts return keys too.
    for (const key of [
      'login.allRequired',
      'register.allRequired',
      'register.passwordsDontMatch',
      'register.passwordHelp',
      'register.passwordTooLong',
      'register.validEmailError',
      'register.usernameMinLength',
      'register.usernameRequirements',
      'changeEmail.validEmailError',
      'changePassword.allRequired',
      'changePassword.passwordsDontMatch',
      'changePassword.passwordMinLength',
      'changePassword.passwordTooLong',
      'changeUsername.usernameRequirements',
      'paymentMethod.missingEmailError',
    ])
      used.add(key);
    const missing = [...used].filter((key) => !(key in spanish));
    expect(missing).toEqual([]);
  });

  it('components hold no user-visible text of their own', () => {
    const offenders: string[] = [];
    for (const file of sourceFiles(src).filter((f) => f.endsWith('.tsx'))) {
      const text = readFileSync(file, 'utf8');
      // Text between JSX tags that contains a letter, e.g. <p>Hello</p>.
      for (const match of text.matchAll(/(?<!=)>\s*([^<>{}\n]*\p{L}[^<>{}\n]*)\s*</gu)) {
        const candidate = match[1]!.trim();
        if (candidate && !/^[=&|?:().,;!+\-\s\w]*=>/.test(candidate) && !/[=;]/.test(candidate))
          offenders.push(`${file}: ${candidate}`);
      }
      for (const match of text.matchAll(/(?:aria-label|title|placeholder|alt)="([^"]*[A-Za-z][^"]*)"/g))
        offenders.push(`${file}: ${match[1]}`);
    }
    expect(offenders).toEqual([]);
  });
});
