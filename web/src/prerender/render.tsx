// The first screens as HTML, rendered at build time (scripts/prerender.mjs) by the same components the
// browser renders, so a phone paints the page from the first bytes instead of after the JavaScript.
// Runs in Node: the session and the language the page is drawn for come from a storage of its own.
import { LANGUAGES, WEB_SHELLS, type Language, type WebShell, type WinnersListShell } from '@omc/contracts';
import type { QueryClient } from '@tanstack/react-query';
import { StrictMode } from 'react';
import { prerender } from 'react-dom/static';
import { StaticRouter } from 'react-router-dom';
import { queryKeys } from '../api/keys';
import { AppRoutes } from '../app/AppRoutes';
import { AppProviders, createQueryClient } from '../app/providers';
import { createI18n, loadTranslations, setAppI18n } from '../i18n';
import { SAMPLE_WINNERS, winnersListTemplate } from './winners-list';

export { LANGUAGES, WEB_SHELLS };
export { winnersListFile } from '@omc/contracts';

/**
 * A signed-in player's token as the game screen's skeleton is drawn for (never sent anywhere): no
 * name, a far expiry, the standard role. The page the browser renders replaces the skeleton.
 */
const SKELETON_TOKEN = `e30.${btoa(
  JSON.stringify({ sub: '0', username: '', role: 'standard', exp: 4_102_444_800 }),
)}.skeleton`;

/** The page's stored session and language: a storage of its own in Node, the page's in a browser (tests). */
function useStorage(entries: Record<string, string>): void {
  if (typeof document !== 'undefined') {
    window.localStorage.clear();
    for (const [key, value] of Object.entries(entries)) window.localStorage.setItem(key, value);
    return;
  }
  const values = new Map(Object.entries(entries));
  const storage = {
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, value),
    removeItem: (key: string) => void values.delete(key),
  };
  (globalThis as { window?: unknown }).window = { localStorage: storage };
}

const toText = (stream: ReadableStream<Uint8Array>) => new Response(stream).text();

type Rendered = { markup: string; title: string };

/** The markup inside `#root` for one screen in one language, as a browser's first render draws it, and the title. */
export async function renderShell(
  shell: WebShell,
  language: Language,
  seed: (queryClient: QueryClient) => void = () => undefined,
): Promise<Rendered> {
  const { path, signedIn } = WEB_SHELLS[shell];
  useStorage({
    language,
    ...(signedIn ? { token: SKELETON_TOKEN, username: '', role: 'standard' } : {}),
  });
  const i18n = createI18n(language);
  await loadTranslations(language, i18n);
  await i18n.changeLanguage(language);
  setAppI18n(i18n);
  const queryClient = createQueryClient();
  seed(queryClient);
  const { prelude } = await prerender(
    <StrictMode>
      <StaticRouter location={path}>
        <AppProviders queryClient={queryClient}>
          <AppRoutes />
        </AppProviders>
      </StaticRouter>
    </StrictMode>,
  );
  return { markup: await toText(prelude), title: i18n.t('app.title') };
}

/**
 * The winners page drawn around a list (WinnersListShell): the app's own render of a page of two sample
 * winners, one named and one whose account is gone, with the rows' place marked and each row made a
 * template of its values. Throws when the drawn table is not the shape the gateway fills.
 */
export async function renderWinnersList(
  language: Language,
): Promise<Rendered & { rows: WinnersListShell['rows'] }> {
  const { markup, title } = await renderShell('winners', language, (queryClient) =>
    queryClient.setQueryData(queryKeys.winners, { pages: [SAMPLE_WINNERS], pageParams: [undefined] }),
  );
  return { title, ...winnersListTemplate(markup) };
}
