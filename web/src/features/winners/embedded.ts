// The first page of winners the gateway drew into the page (gateway/src/web/winners-page.ts): the app's
// first render shows the same rows from it instead of a loading line, while it asks for the list.
import { EMBEDDED_WINNERS_ID, TIME_ZONE_COOKIE, WinnersResponse } from '@omc/contracts';
import { writeCookie } from '../../session/storage';

export interface EmbeddedWinners {
  page: WinnersResponse;
  /** When the gateway read them (milliseconds since the epoch). */
  readAt: number;
}

let embedded: EmbeddedWinners | undefined;

/**
 * The drawn page's winners (undefined when the page came without a list). The data block is read and
 * removed by the first call; later calls return the same until forgetEmbeddedWinners.
 */
export function embeddedWinners(): EmbeddedWinners | undefined {
  const element = typeof document === 'undefined' ? null : document.getElementById(EMBEDDED_WINNERS_ID);
  if (!element) return embedded;
  element.remove();
  embedded = undefined;
  try {
    const page = WinnersResponse.safeParse(JSON.parse(element.textContent ?? ''));
    const readAt = Number(element.dataset.readAt);
    if (page.success && Number.isFinite(readAt)) embedded = { page: page.data, readAt };
  } catch {
    // not JSON: the list is asked for as usual
  }
  return embedded;
}

/** Once the page has shown them: a later visit to the page asks for the list. */
export function forgetEmbeddedWinners(): void {
  embedded = undefined;
}

/**
 * Tells the gateway the viewer's time zone (a hint cookie), so the dates of the list it draws on the
 * next visit are the ones the app shows (dd/mm/yyyy where the viewer is).
 */
export function syncTimeZoneHint(): void {
  try {
    writeCookie(TIME_ZONE_COOKIE, Intl.DateTimeFormat().resolvedOptions().timeZone || null);
  } catch {
    // no Intl time zone: the gateway draws dates in UTC
  }
}
