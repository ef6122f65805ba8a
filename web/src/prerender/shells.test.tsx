// The first screens the gateway sends already drawn (scripts/prerender.mjs). What a phone shows from
// the first bytes must be the page the app then runs: the welcome screen is adopted by React as it is
// (no redraw, no mismatch) in every language, and the built files carry the screen, its styles inline.
import {
  LANGUAGES,
  shellFile,
  WEB_SHELLS,
  WINNER_ROWS_MARK,
  winnerDateFormat,
  winnerRowsHtml,
  winnersListFile,
  type WebShell,
  type WinnersListShell,
  type WinnersResponse,
} from '@omc/contracts';
import { act } from '@testing-library/react';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import { StrictMode } from 'react';
import { hydrateRoot, type Root } from 'react-dom/client';
import { MemoryRouter } from 'react-router-dom';
import { describe, expect, it } from 'vitest';
import { queryKeys } from '../api/keys';
import { AppRoutes } from '../app/AppRoutes';
import { AppProviders, createQueryClient } from '../app/providers';
import { allTranslations, createI18n, loadTranslations, setAppI18n } from '../i18n';
import { renderShell, renderWinnersList } from './render';

const DIST = resolve(import.meta.dirname, '..', '..', 'dist');
const translations = await allTranslations();
const text = (language: (typeof LANGUAGES)[number], key: string): string =>
  key
    .split('.')
    .reduce<unknown>(
      (node, part) => (node as Record<string, unknown>)[part],
      translations[language],
    ) as string;
/** A string as React writes it in HTML. */
const html = (value: string) =>
  value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#x27;');
/** Whether a page holds a fragment (without printing the whole page when it does not). */
const holds = (page: string, fragment: string) => expect(page.includes(fragment), fragment).toBe(true);

function builtShells(): void {
  if (existsSync(join(DIST, shellFile('winners', 'pt'))) && existsSync(join(DIST, winnersListFile('pt'))))
    return;
  // Built for production: the test runner's NODE_ENV (test) would give React's development build.
  const build = spawnSync('pnpm', ['run', 'build'], {
    cwd: resolve(DIST, '..'),
    stdio: 'inherit',
    env: { ...process.env, NODE_ENV: 'production' },
  });
  if (build.status !== 0) throw new Error('the web app did not build');
}

describe('the welcome screen drawn at build time', () => {
  builtShells();
  it.each(LANGUAGES)('is adopted by the app as it is, in %s', async (language) => {
    const page = new DOMParser().parseFromString(
      readFileSync(join(DIST, shellFile('welcome', language)), 'utf8'),
      'text/html',
    );
    const container = document.createElement('div');
    container.innerHTML = page.getElementById('root')!.innerHTML;
    document.body.append(container);
    const heading = container.querySelector('h1')!;
    expect(heading.textContent).toBe(text(language, 'app.title'));

    // The browser's start: the stored language, nobody signed in.
    window.localStorage.clear();
    window.localStorage.setItem('language', language);
    const i18n = createI18n(language);
    await loadTranslations(language, i18n);
    await i18n.changeLanguage(language);
    setAppI18n(i18n);
    const errors: unknown[] = [];
    let root: Root | undefined;
    await act(async () => {
      root = hydrateRoot(
        container,
        <StrictMode>
          <MemoryRouter initialEntries={['/']}>
            <AppProviders queryClient={createQueryClient()}>
              <AppRoutes />
            </AppProviders>
          </MemoryRouter>
        </StrictMode>,
        { onRecoverableError: (error) => errors.push(error) },
      );
    });
    expect(errors).toEqual([]);
    // The same heading node: React took over the drawn page instead of drawing another.
    expect(heading.isConnected).toBe(true);
    expect(container.querySelector('h1')).toBe(heading);
    // Unmounted, as a page is left: the next test file may share this document.
    act(() => root?.unmount());
    container.remove();
  });
});

/** The modules a built page names for the app's start to fetch once it is drawn. */
const modulesOf = (page: string) =>
  (/<meta name="omc-modules" content="([^"]*)">/.exec(page)?.[1] ?? '').split(' ').filter(Boolean);

describe('the first screens as built', () => {
  const read = (shell: WebShell, language: (typeof LANGUAGES)[number]) => {
    const file = join(DIST, shellFile(shell, language));
    const html = readFileSync(file, 'utf8');
    // Served compressed: the .br beside it is the same page.
    expect(brotliDecompressSync(readFileSync(`${file}.br`)).toString('utf8')).toBe(html);
    return html;
  };

  it.each(LANGUAGES)('carry each screen in %s, with no stylesheet to wait for', (language) => {
    for (const shell of Object.keys(WEB_SHELLS) as WebShell[]) {
      const page = read(shell, language);
      holds(page, `<html lang="${language}">`);
      holds(page, `<title>${html(text(language, 'app.title'))}</title>`);
      expect(/<style>[^<]*\.welcome__title/.test(page)).toBe(true);
      expect(page.includes('<link rel="stylesheet"')).toBe(false);
      // Inert until the app has taken over, so no press is lost before the JavaScript runs.
      holds(page, `<div id="root" data-shell="${shell}" data-lang="${language}" inert>`);
      // The app's modules are named; a page drawn whole fetches nothing but the entry before its first
      // paint (the entry fetches them once the page is drawn, src/boot.ts). The winners list needs the
      // app, so that page fetches them beside its own bytes.
      expect(page.includes('rel="modulepreload"')).toBe(shell === 'winners');
      expect(modulesOf(page).some((m) => /^\/assets\/react-[\w-]+\.js$/.test(m))).toBe(true);
      expect(
        /<script type="module" crossorigin fetchpriority="low" src="\/assets\/index-[\w-]+\.js"><\/script>/.test(
          page,
        ),
      ).toBe(true);
    }
    const welcome = read('welcome', language);
    holds(welcome, `<h1 class="welcome__title">${html(text(language, 'app.title'))}</h1>`);
    for (const key of ['welcome.register', 'welcome.login', 'welcome.guest'])
      holds(welcome, `>${html(text(language, key))}</button>`);
    // The game's skeleton: the counter and the button, before the socket or the state arrive.
    const game = read('game', language);
    holds(game, 'class="counter__value num"');
    holds(game, `aria-label="${html(text(language, 'game.clickButtonLabel'))}"`);
    expect(game.includes('data-testid=')).toBe(false);
    // The winners page: its heading, and its own chunk among the modules fetched once it is drawn.
    const winners = read('winners', language);
    holds(winners, `>${html(text(language, 'winners.title'))}</h1>`);
    expect(modulesOf(winners).some((m) => /^\/assets\/WinnersPage-[\w-]+\.js$/.test(m))).toBe(true);
    expect(modulesOf(game).some((m) => /WinnersPage/.test(m))).toBe(false);
  });
});

describe('the winners page drawn around a list', () => {
  const page: WinnersResponse = {
    winners: [
      {
        _id: 'a',
        userId: { username: `<b>"o'neil" & co</b>` },
        pot: 1234.5,
        createdAt: '2026-03-05T12:00:00.000Z',
      },
      { _id: 'b', userId: null, pot: 0.1, createdAt: '2025-12-31T12:00:00.000Z' },
      { _id: 'c', userId: { username: 'bea' }, pot: 3, createdAt: '2024-02-29T12:00:00.000Z' },
    ],
    nextCursor: null,
  };

  it.each(LANGUAGES)('is filled by the gateway with the rows the app draws, in %s', async (language) => {
    const list = await renderWinnersList(language);
    const { markup } = await renderShell('winners', language, (queryClient) =>
      queryClient.setQueryData(queryKeys.winners, { pages: [page], pageParams: [undefined] }),
    );
    const byApp = /<tbody>([\s\S]*)<\/tbody>/.exec(markup)?.[1];
    // The gateway's fill (@omc/contracts) in this process's time zone, as the app writes dates here.
    expect(winnerRowsHtml(list.rows, page.winners, winnerDateFormat())).toBe(byApp);
    expect(list.markup.replace(WINNER_ROWS_MARK, () => byApp!)).toBe(markup);
  });

  it.each(LANGUAGES)('is built in %s, fetching the app only once it is drawn', (language) => {
    builtShells();
    const list = JSON.parse(readFileSync(join(DIST, winnersListFile(language)), 'utf8')) as WinnersListShell;
    holds(list.page, `<html lang="${language}">`);
    holds(list.page, `<div id="root" data-shell="winners" data-lang="${language}" inert>`);
    holds(list.page, `<tbody>${WINNER_ROWS_MARK}</tbody>`);
    holds(list.page, `>${html(text(language, 'winners.title'))}</h1>`);
    expect(list.page.includes('rel="modulepreload"')).toBe(false);
    expect(modulesOf(list.page).some((m) => /^\/assets\/WinnersPage-[\w-]+\.js$/.test(m))).toBe(true);
    holds(list.rows.unnamed, `>${html(text(language, 'winners.unknownUser'))}</td>`);
  });
});
