// Numbers, money and dates per language (the client contract: € in most languages, $ in English).
import type { Language } from '@omc/contracts';

const LOCALES: Record<Language, string> = {
  es: 'es-ES',
  en: 'en-US',
  fr: 'fr-FR',
  de: 'de-DE',
  it: 'it-IT',
  pt: 'pt-PT',
};

export function localeOf(language: string): string {
  return LOCALES[language as Language] ?? LOCALES.en;
}

type NumberStyle = 'count' | 'twoDecimals' | 'eur';
const STYLES: Record<NumberStyle, Intl.NumberFormatOptions> = {
  count: { maximumFractionDigits: 0 },
  twoDecimals: { minimumFractionDigits: 2, maximumFractionDigits: 2 },
  eur: { style: 'currency', currency: 'EUR' },
};
const formatters = new Map<string, Intl.NumberFormat>();

/**
 * One formatter per language and style, made once: building an Intl.NumberFormat costs far more than
 * using one, and the game screen formats a dozen numbers on each of its ten updates a second.
 */
function formatter(language: string, style: NumberStyle): Intl.NumberFormat {
  const key = `${language}:${style}`;
  let made = formatters.get(key);
  if (!made) formatters.set(key, (made = new Intl.NumberFormat(localeOf(language), STYLES[style])));
  return made;
}

/**
 * Makes the formatters a first screen uses, each in a task of its own (`nextTask` yields to the
 * browser): the first one of a language loads that language's number data, which on a phone is a
 * long task if it comes in the middle of the first render.
 */
export async function prepareFormatters(language: string, nextTask: () => Promise<void>): Promise<void> {
  for (const style of ['count', 'twoDecimals'] as const) {
    formatter(language, style);
    await nextTask();
  }
}

export function formatCount(value: number, language: string): string {
  return formatter(language, 'count').format(value);
}

function twoDecimals(value: number, language: string): string {
  return formatter(language, 'twoDecimals').format(value);
}

/** The pot and balances: $ before the amount in English, € after it elsewhere. */
export function formatMoney(value: number, language: string): string {
  return language === 'en' ? `$${twoDecimals(value, language)}` : `${twoDecimals(value, language)} €`;
}

/** Pack prices are in EUR in every language. */
export function formatPrice(value: number, language: string): string {
  return formatter(language, 'eur').format(value);
}
