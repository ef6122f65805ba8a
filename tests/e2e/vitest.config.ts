import { defineConfig } from 'vitest/config';

// `npm test` leaves the long fault suites (`*.chaos.test.ts`) to `npm run test:chaos`, which sets
// OMC_SUITE=chaos.
const chaos = process.env.OMC_SUITE === 'chaos';

export default defineConfig({
  test: {
    include: chaos ? ['test/**/*.chaos.test.ts'] : ['test/**/*.e2e.test.ts'],
    exclude: chaos ? [] : ['test/**/*.chaos.test.ts'],
    globalSetup: ['./test/global-setup.ts'],
    // One system for the whole suite; the scenarios share its round, so they run in order.
    fileParallelism: false,
    // Files share the worker's modules (none mocks one): loaded once, not once a file.
    isolate: false,
    sequence: { concurrent: false },
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
