// Numbers, money and dates per language (SPEC section 1: € in most languages, $ in English).
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

export function formatCount(value: number, language: string): string {
  return new Intl.NumberFormat(localeOf(language), { maximumFractionDigits: 0 }).format(value);
}

function twoDecimals(value: number, language: string): string {
  return new Intl.NumberFormat(localeOf(language), {
    minimumFractionDigits: 2,
    maximumFractionDigits: 2,
  }).format(value);
}

/** The pot and balances: $ before the amount in English, € after it elsewhere. */
export function formatMoney(value: number, language: string): string {
  return language === 'en' ? `$${twoDecimals(value, language)}` : `${twoDecimals(value, language)} €`;
}

/** Pack prices are in EUR in every language. */
export function formatPrice(value: number, language: string): string {
  return new Intl.NumberFormat(localeOf(language), { style: 'currency', currency: 'EUR' }).format(value);
}

/** The winners list (SPEC section 2): a $ suffix with 2 decimals. */
export function formatWinnerPot(pot: number): string {
  return `${pot.toFixed(2)}$`;
}

/** dd/mm/yyyy in the viewer's time zone. */
export function formatWinnerDate(iso: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const dd = String(date.getDate()).padStart(2, '0');
  const mm = String(date.getMonth() + 1).padStart(2, '0');
  return `${dd}/${mm}/${date.getFullYear()}`;
}
