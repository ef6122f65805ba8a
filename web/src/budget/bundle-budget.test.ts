// The first screen on a phone: the JavaScript that `/` and `/game` load, counted in compressed bytes as
// the gateway serves them (the .br files the build writes beside each asset), from the build manifest.
// Deterministic: the same sources give the same bytes. `npm test` builds the app first; run alone, this
// test builds it when web/dist has no manifest.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const WEB = resolve(import.meta.dirname, '..', '..');
const DIST = join(WEB, 'dist');
const MANIFEST = join(DIST, '.vite', 'manifest.json');
/** Compressed (brotli) JavaScript that a first screen may load. */
export const FIRST_SCREEN_JS_BUDGET = 150_000;

interface Chunk {
  file: string;
  src?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}

function manifest(): Record<string, Chunk> {
  if (!existsSync(MANIFEST)) {
    const build = spawnSync('pnpm', ['exec', 'vite', 'build', '--logLevel', 'error'], {
      cwd: WEB,
      stdio: 'inherit',
      // The test runner's NODE_ENV (test) would give React's development build.
      env: { ...process.env, NODE_ENV: 'production' },
    });
    if (build.status !== 0) throw new Error('the web app did not build');
  }
  return JSON.parse(readFileSync(MANIFEST, 'utf8')) as Record<string, Chunk>;
}

/**
 * The files a page loads to start: the entry, the stages it evaluates as it starts (its dynamic imports:
 * src/main.tsx imports nothing else that way), the page's own chunk, and their static imports.
 */
function filesLoaded(chunks: Record<string, Chunk>, keys: string[]): string[] {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    const chunk = chunks[key];
    if (!chunk) return;
    seen.add(key);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const key of keys) visit(key);
  return [...seen].map((key) => chunks[key]!.file).filter((file) => file.endsWith('.js'));
}

/** As sent: the .br beside the file, or the file itself where compressing it would not make it smaller. */
const compressedBytes = (file: string) => {
  const path = join(DIST, file);
  return existsSync(`${path}.br`) ? statSync(`${path}.br`).size : statSync(path).size;
};

describe('first screen bundle budget', () => {
  const chunks = manifest();
  const entry = Object.keys(chunks).find((key) => chunks[key]!.isEntry)!;
  // A page's module is its own key when it is a lazy chunk; otherwise it is inside the entry.
  const pages = {
    '/': ['src/features/welcome/WelcomePage.tsx'],
    '/game': ['src/features/game/GamePage.tsx'],
  };

  for (const [path, modules] of Object.entries(pages)) {
    it(`keeps the JavaScript that ${path} loads within ${FIRST_SCREEN_JS_BUDGET / 1000} KB compressed`, () => {
      const files = filesLoaded(chunks, [entry, ...(chunks[entry]!.dynamicImports ?? []), ...modules]);
      const bytes = files.reduce((sum, file) => sum + compressedBytes(file), 0);
      console.log(`${path}: ${files.length} JavaScript files, ${bytes} bytes brotli (${files.join(', ')})`);
      expect(bytes).toBeLessThanOrEqual(FIRST_SCREEN_JS_BUDGET);
    });
  }

  it('serves no page the payment form up front: it loads when a purchase needs it', () => {
    const upFront = filesLoaded(chunks, [
      entry,
      ...(chunks[entry]!.dynamicImports ?? []),
      ...Object.values(pages).flat(),
    ]);
    expect(upFront.some((file) => /dropin/.test(file))).toBe(false);
  });
});
