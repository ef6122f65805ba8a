// After `vite build`: the first screens (welcome, the game's skeleton, winners) drawn in every language
// into web/dist/shells/<screen>.<language>.html, each compressed like the other assets. Each is the
// built index.html with the screen's markup inside #root and the stylesheet inline, so the first bytes
// paint the page without waiting for a stylesheet or the JavaScript. The gateway picks one per request.
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
      .replace(
        '</head>',
        () => `${preload.map((f) => `<link rel="modulepreload" crossorigin href="/${f}">`).join('')}</head>`,
      )
      // The page is drawn without the JavaScript, which only takes it over: its requests go at low
      // priority, so nothing competes with the page's own bytes and paint for the first frame.
      .replace(
        /<script type="module" crossorigin /g,
        '<script type="module" crossorigin fetchpriority="low" ',
      )
      .replace(
        /<link rel="modulepreload" crossorigin /g,
        '<link rel="modulepreload" crossorigin fetchpriority="low" ',
      )
      // inert until the app takes over: a press before the JavaScript runs would be lost (main.tsx lifts it).
      .replace(
        root,
        () => `<div id="root" data-shell="${shell}" data-lang="${language}" inert>${markup}</div>`,
      )
  );
}

async function main() {
  const template = readFileSync(join(DIST, 'index.html'), 'utf8');
  const manifest = JSON.parse(readFileSync(join(DIST, '.vite', 'manifest.json'), 'utf8'));
  const entry = Object.values(manifest).find((chunk) => chunk.isEntry);
  const cssFile = entry?.css?.[0];
  if (!cssFile) throw new Error('the build manifest names no stylesheet for the entry');
  const css = readFileSync(join(DIST, cssFile), 'utf8');
  // A lazy page's own chunk and what it imports beyond the entry, fetched beside the entry, not after it.
  const preloadOf = (key) => {
    const seen = new Set();
    const visit = (k) => {
      const chunk = manifest[k];
      if (!chunk || seen.has(k) || chunk.isEntry) return;
      seen.add(k);
      (chunk.imports ?? []).forEach(visit);
    };
    if (key) visit(key);
    const entryFiles = new Set([entry.file, ...(entry.imports ?? []).map((k) => manifest[k]?.file)]);
    return [...seen].map((k) => manifest[k].file).filter((f) => !entryFiles.has(f));
  };

  const vite = await createServer({
    root: WEB,
    configFile: join(WEB, 'vite.config.ts'),
    logLevel: 'error',
    server: { middlewareMode: true, hmr: false, ws: false },
    appType: 'custom',
  });
  try {
    const { renderShell, LANGUAGES, WEB_SHELLS } = await vite.ssrLoadModule('/src/prerender/render.tsx');
    const out = join(DIST, 'shells');
    rmSync(out, { recursive: true, force: true });
    mkdirSync(out, { recursive: true });
    const pageChunk = { welcome: null, game: null, winners: 'src/features/winners/WinnersPage.tsx' };
    let written = 0;
    for (const shell of Object.keys(WEB_SHELLS)) {
      const preload = preloadOf(pageChunk[shell]);
      for (const language of LANGUAGES) {
        const { markup: rendered, title } = await renderShell(shell, language);
        // Only the welcome screen is hydrated in place; the others are replaced by the app's first render.
        const markup = shell === 'welcome' ? rendered : stripTestIds(rendered);
        const html = shellHtml(template, { css, markup, title, language, shell, preload });
        const file = join(out, `${shell}.${language}.html`);
        writeFileSync(file, html);
        writeFileSync(
          `${file}.br`,
          brotliCompressSync(html, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
        );
        writeFileSync(`${file}.gz`, gzipSync(html, { level: 9 }));
        written++;
      }
    }
    console.log(`prerendered ${written} first screens into dist/shells`);
  } finally {
    await vite.close();
  }
}

await main();
