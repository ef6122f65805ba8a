// The first screens the gateway sends as HTML already drawn (web/scripts/prerender.mjs writes them,
// gateway/src/web/web-app.ts picks one per request). Two cookies the web app keeps beside its local
// storage tell the gateway which one to send: they are hints for the first paint, never credentials.
import { LANGUAGES, type Language } from './common.js';

/** Cookie names: the player's language, and whether a session is stored (its value is always `1`). */
export const SHELL_COOKIES = { language: 'omc_lang', signedIn: 'omc_signed_in' } as const;

/** A drawn first screen: the page path it is for, and whether it is drawn for a signed-in player. */
export const WEB_SHELLS = {
  welcome: { path: '/', signedIn: false },
  game: { path: '/game', signedIn: true },
  winners: { path: '/winners', signedIn: false },
} as const;
export type WebShell = keyof typeof WEB_SHELLS;

/** Where the build writes a shell (relative to web/dist). */
export function shellFile(shell: WebShell, language: Language): string {
  return `shells/${shell}.${language}.html`;
}

/**
 * The shell for a page path. `/` and `/game` send a player with a stored session to the game and anyone
 * else to the welcome screen (docs/client-contract.md), so each is drawn as the screen the app will show.
 */
export function shellFor(path: string, signedIn: boolean): WebShell | null {
  if (path === '/' || path === '/game') return signedIn ? 'game' : 'welcome';
  if (path === '/winners') return 'winners';
  return null;
}

/** The language a cookie names, if it names one the app speaks. */
export function shellLanguage(value: string | undefined): Language | null {
  return (LANGUAGES as readonly string[]).includes(value ?? '') ? (value as Language) : null;
}
