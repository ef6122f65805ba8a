// After `vite build`: the first screens (welcome, the game's skeleton, winners) drawn in every language
// into web/dist/shells/<screen>.<language>.html, each compressed like the other assets. Each is the
// built index.html with the screen's markup inside #root and the stylesheet inline, so the first bytes
// paint the page without waiting for a stylesheet or the JavaScript. The gateway picks one per request.
// index.html itself (every other page) and each shell name the modules the app's start fetches once the
// page is drawn (web/src/boot.ts). The winners page is also drawn around a list
// (shells/winners.<language>.list.json), which the gateway fills with the first page of winners.
import { readFileSync, mkdirSync, writeFileSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { createServer } from 'vite';

const WEB = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DIST = join(WEB, 'dist');

/** The markup inside #root for the screens that are not hydrated: test ids belong to the live page. */
const escapeHtml = (text) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

const stripTestIds = (html) => html.replace(/ data-testid="[^"]*"/g, '');

/**
 * The modules a page runs, named for the app's start (web/src/boot.ts): it fetches them once the page is
 * drawn. Not as <link rel="modulepreload"> (but see preloadLinks): those would be fetched beside the
 * page's own bytes, before its first paint, which needs none of them.
 */
const modulesMeta = (files) => `<meta name="omc-modules" content="${files.map((f) => `/${f}`).join(' ')}">`;

function withModules(template, files) {
  if (/<link rel="modulepreload"/.test(template))
    throw new Error('index.html preloads modules before the first paint: the entry must import none');
  return template.replace('</head>', () => `${modulesMeta(files)}</head>`);
}

/**
 * A page whose largest content needs the app (the winners list comes from the API) fetches the app's
 * modules beside its own bytes, at low priority, instead of after its first paint: waiting would only
 * delay that content. The pages drawn whole (welcome, the game) fetch them once drawn.
 */
const preloadLinks = (files) =>
  files.map((f) => `<link rel="modulepreload" crossorigin fetchpriority="low" href="/${f}">`).join('');

function shellHtml(template, { css, markup, title, language, shell, preload }) {
  const stylesheet = /<link rel="stylesheet" crossorigin href="([^"]+)">/;
  if (!stylesheet.test(template)) throw new Error('index.html has no stylesheet link to inline');
  const root = '<div id="root"></div>';
  if (!template.includes(root)) throw new Error('index.html has no empty #root');
  return (
    template
      .replace('<html lang="es">', `<html lang="${language}">`)
      .replace(/<title>[^<]*<\/title>/, () => `<title>${escapeHtml(title)}</title>`)
      // The whole stylesheet is ~5 KB compressed: inline it, so no request stands before the first paint.
      .replace(stylesheet, () => `<style>${css}</style>`)
      // The page is drawn without the JavaScript, which only takes it over: the entry (a few kB) goes at
      // low priority, so nothing competes with the page's own bytes and paint for the first frame.
      .replace(
        /<script type="module" crossorigin /g,
        '<script type="module" crossorigin fetchpriority="low" ',
      )
      .replace('</head>', () => `${preload.length > 0 ? preloadLinks(preload) : ''}</head>`)
      // inert until the app takes over: a press before the JavaScript runs would be lost (start.tsx lifts it).
      .replace(
        root,
        () => `<div id="root" data-shell="${shell}" data-lang="${language}" inert>${markup}</div>`,
      )
  );
}

const compressBeside = (file, text) => {
  writeFileSync(file, text);
  writeFileSync(`${file}.br`, brotliCompressSync(text, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }));
  writeFileSync(`${file}.gz`, gzipSync(text, { level: 9 }));
};

async function main() {
  // (A second run finds its own list in index.html: it is written again, not twice.)
  const template = readFileSync(join(DIST, 'index.html'), 'utf8').replace(
    /<meta name="omc-modules"[^>]*>/,
    '',
  );
  const manifest = JSON.parse(readFileSync(join(DIST, '.vite', 'manifest.json'), 'utf8'));
  const entry = Object.values(manifest).find((chunk) => chunk.isEntry);
  // One stylesheet for the app (vite.config.ts: cssCodeSplit off): the manifest names it style.css.
  const cssFile = entry?.css?.[0] ?? manifest['style.css']?.file;
  if (!cssFile) throw new Error('the build manifest names no stylesheet for the entry');
  const css = readFileSync(join(DIST, cssFile), 'utf8');
  // What the app's start evaluates (the entry's stages, web/src/main.tsx) and, for a lazy page, its own
  // chunk: every file they import, fetched at once after the first paint.
  const modulesOf = (keys) => {
    const seen = new Set();
    const visit = (k) => {
      const chunk = manifest[k];
      if (!chunk || seen.has(k) || chunk.isEntry) return;
      seen.add(k);
      (chunk.imports ?? []).forEach(visit);
    };
    keys.forEach(visit);
    return [...seen].map((k) => manifest[k].file).filter((f) => f.endsWith('.js'));
  };
  const stages = entry.dynamicImports ?? [];
  const plain = withModules(template, modulesOf(stages));
  compressBeside(join(DIST, 'index.html'), plain);

  const vite = await createServer({
    root: WEB,
    configFile: join(WEB, 'vite.config.ts'),
    logLevel: 'error',
    server: { middlewareMode: true, hmr: false, ws: false },
    appType: 'custom',
  });
  try {
    const { renderShell, renderWinnersList, winnersListFile, LANGUAGES, WEB_SHELLS } =
      await vite.ssrLoadModule('/src/prerender/render.tsx');
    const out = join(DIST, 'shells');
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const pageChunk = { welcome: [], game: [], winners: ['src/features/winners/WinnersPage.tsx'] };
    const needsApp = { welcome: false, game: false, winners: true };
    let written = 0;
    for (const shell of Object.keys(WEB_SHELLS)) {
      const modules = modulesOf([...stages, ...pageChunk[shell]]);
      const preload = needsApp[shell] ? modules : [];
      const page = withModules(template, modules);
      for (const language of LANGUAGES) {
        const { markup: rendered, title } = await renderShell(shell, language);
        // Only the welcome screen is hydrated in place; the others are replaced by the app's first render.
        const markup = shell === 'welcome' ? rendered : stripTestIds(rendered);
        const html = shellHtml(page, { css, markup, title, language, shell, preload });
        compressBeside(join(out, `${shell}.${language}.html`), html);
        written++;
        if (shell !== 'winners') continue;
        // The same page drawn around a list, for the gateway to fill with the first page of winners.
        const list = await renderWinnersList(language);
        writeFileSync(
          join(DIST, winnersListFile(language)),
          JSON.stringify({
            // Its largest content is drawn, so the app is fetched once it is on screen, as for the game.
            page: shellHtml(page, {
              css,
              markup: stripTestIds(list.markup),
              title,
              language,
              shell,
              preload: [],
            }),
            rows: list.rows,
          }),
        );
      }
    }
    console.log(`prerendered ${written} first screens into dist/shells`);
  } finally {
    await vite.close();
  }
}

await main();
