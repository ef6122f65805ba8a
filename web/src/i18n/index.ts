// i18next with one JSON file per language (SPEC section 1): Spanish by default, English as fallback.
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '@omc/contracts';
import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';
import { loadLanguage, saveLanguage } from '../session/storage';
import de from './de.json';
import en from './en.json';
import es from './es.json';
import fr from './fr.json';
import it from './it.json';
import pt from './pt.json';

export const translations: Record<Language, Record<string, unknown>> = { es, en, fr, de, it, pt };

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
    resources: Object.fromEntries(LANGUAGES.map((l) => [l, { translation: translations[l] }])),
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
  await appI18n().changeLanguage(language);
}

export { DEFAULT_LANGUAGE };
