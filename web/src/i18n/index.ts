// i18next with one JSON file per language (docs/client-contract.md): Spanish by default, English as fallback.
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@omc/contracts';
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { loadLanguage, saveLanguage } from '../session/storage';
import en from './en.json';
import es from './es.json';

type Translation = Record<string, unknown>;

/** Spanish (the default) and English (the fallback) are in the first screen's bundle. */
const bundled: Partial<Record<Language, Translation>> = { es, en };
/** The other languages load when chosen, so a first paint carries none of them. */
const loaders = import.meta.glob<Translation>(['./*.json', '!./es.json', '!./en.json'], {
  import: 'default',
});

/** Every language's strings (tests and tools; the app loads them one at a time). */
export async function allTranslations(): Promise<Record<Language, Translation>> {
  const entries = await Promise.all(LANGUAGES.map(async (l) => [l, await translationOf(l)] as const));
  return Object.fromEntries(entries) as Record<Language, Translation>;
}

async function translationOf(language: Language): Promise<Translation> {
  const loaded = bundled[language];
  if (loaded) return loaded;
  const load = loaders[`./${language}.json`];
  if (!load) throw new Error(`no translation file for ${language}`);
  return load();
}

/** Makes a language's strings available to an instance (a no-op when it has them). */
export async function loadTranslations(language: Language, instance = appI18n()): Promise<void> {
  if (instance.hasResourceBundle(language, 'translation')) return;
  instance.addResourceBundle(language, 'translation', await translationOf(language));
}

/** Each language's own name, shown the same in every language. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  es: 'Español',
  en: 'English',
  fr: 'Français',
  de: 'Deutsch',
  it: 'Italiano',
  pt: 'Português',
};

export function createI18n(language: Language = loadLanguage()) {
  const instance = i18n.createInstance();
  void instance.use(initReactI18next).init({
    resources: Object.fromEntries(Object.entries(bundled).map(([l, t]) => [l, { translation: t }])),
    partialBundledLanguages: true,
    lng: language,
    fallbackLng: 'en',
    supportedLngs: [...LANGUAGES],
    interpolation: { escapeValue: false },
    returnNull: false,
    initAsync: false,
  });
  const reflect = (lng: string) => {
    if (typeof document === 'undefined') return;
    document.documentElement.lang = lng;
    document.title = instance.t('app.title');
  };
  reflect(language);
  instance.on('languageChanged', reflect);
  // Another language shows English until its file arrives (main.tsx waits for it before the first render).
  if (!bundled[language])
    void loadTranslations(language, instance).then(() => instance.changeLanguage(language));
  return instance;
}

let current: ReturnType<typeof createI18n> | null = null;

export function appI18n() {
  current ??= createI18n();
  return current;
}

/** Use a given instance (tests build their own). */
export function setAppI18n(instance: ReturnType<typeof createI18n>) {
  current = instance;
}

/** Switches the interface language and remembers it. */
export async function applyLanguage(language: Language): Promise<void> {
  saveLanguage(language);
  await loadTranslations(language);
  await appI18n().changeLanguage(language);
}

export { DEFAULT_LANGUAGE };
