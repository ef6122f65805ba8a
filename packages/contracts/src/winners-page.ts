// The winners page the gateway sends with the first page of winners drawn in it
// (gateway/src/web/winners-page.ts), from a template the build draws (web/scripts/prerender.mjs), and
// the values both write, so the app's rows and the gateway's are the same text. A module of its own:
// the web app loads it with the winners page only, not with its first screens.
import type { Language } from './common.js';

/**
 * The winners page drawn around the list (web/scripts/prerender.mjs writes one per language): the page
 * with WINNER_ROWS_MARK where the table's rows go, and one row of each kind with WINNER_FIELDS where a
 * winner's values go. The gateway fills it with the first page of winners and sends it (winnerRowsHtml),
 * so the list is on the first paint; the page without a list (shellFile) is sent when none is at hand.
 */
export interface WinnersListShell {
  page: string;
  rows: { named: string; unnamed: string };
}

export const WINNER_ROWS_MARK = '<!--omc-winner-rows-->';
export const WINNER_FIELDS = {
  name: '{{winner-name}}',
  pot: '{{winner-pot}}',
  date: '{{winner-date}}',
} as const;

/** Where the build writes the winners page drawn around a list (relative to web/dist). */
export function winnersListFile(language: Language): string {
  return `shells/winners.${language}.list.json`;
}

/**
 * The element (a JSON data block after #root, never executed) that carries the drawn list's page of
 * winners, so the app's first render shows the same rows while it asks for the list; `data-read-at` is
 * when the gateway read them (milliseconds since the epoch).
 */
export const EMBEDDED_WINNERS_ID = 'omc-winners';

/** The name of a cookie hint with the player's time zone (IANA), so drawn dates are the player's own. */
export const TIME_ZONE_COOKIE = 'omc_tz';

/** A winner's pot as the list shows it (docs/client-contract.md): 2 decimals and a $ suffix. */
export function formatWinnerPot(pot: number): string {
  return `${pot.toFixed(2)}$`;
}

/** A win's date as the list shows it: dd/mm/yyyy in a time zone (the viewer's own in the browser). */
export function formatWinnerDateIn(iso: string, format: Intl.DateTimeFormat): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const parts = format.formatToParts(date);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? '';
  return `${part('day')}/${part('month')}/${part('year')}`;
}

/** The formatter formatWinnerDateIn needs, for a time zone (undefined: the runtime's own). */
export function winnerDateFormat(timeZone?: string): Intl.DateTimeFormat {
  return new Intl.DateTimeFormat('en-GB', { timeZone, day: '2-digit', month: '2-digit', year: 'numeric' });
}

const escapeHtml = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#x27;');

/** The table rows for a page of winners, from the drawn page's row templates; every value escaped. */
export function winnerRowsHtml(
  rows: WinnersListShell['rows'],
  winners: readonly { userId: { username: string } | null; pot: number; createdAt: string }[],
  dateFormat: Intl.DateTimeFormat,
): string {
  return winners
    .map((winner) =>
      (winner.userId ? rows.named : rows.unnamed)
        .replace(WINNER_FIELDS.name, () => escapeHtml(winner.userId?.username ?? ''))
        .replace(WINNER_FIELDS.pot, () => escapeHtml(formatWinnerPot(winner.pot)))
        .replace(WINNER_FIELDS.date, () => escapeHtml(formatWinnerDateIn(winner.createdAt, dateFormat))),
    )
    .join('');
}
