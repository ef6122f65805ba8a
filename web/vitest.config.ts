import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

// The server-rendered shells (React's server renderer beside the client one) leave React's and
// react-i18next's shared state behind (a provider's value, the global i18n instance): that file runs
// isolated. Every other file starts from a clean page and app (src/test/setup.ts clears storage, the
// language and the rendered trees between tests), so a worker keeps the modules it loaded from one file
// to the next: the app's code and jsdom are loaded once a worker, not once a file (a fifth of the CPU).
const SERVER_RENDERED = ['src/prerender/shells.test.tsx'];

export default defineConfig({
  plugins: [react()],
  test: {
    environment: 'jsdom',
    // Worker threads, not processes: the same isolation per file on less CPU (about a tenth here).
    pool: 'threads',
    setupFiles: ['./src/test/setup.ts'],
    restoreMocks: true,
    testTimeout: 20_000,
    projects: [
      {
        extends: true,
        test: { name: 'app', include: ['src/**/*.test.{ts,tsx}'], exclude: SERVER_RENDERED, isolate: false },
      },
      { extends: true, test: { name: 'server-rendered', include: SERVER_RENDERED } },
    ],
  },
});
