import { defineConfig } from 'vitest/config';

// `npm test` leaves the long fault suites (`*.chaos.test.ts`) to `npm run test:chaos`, which sets
// OMC_SUITE=chaos.
const chaos = process.env.OMC_SUITE === 'chaos';

export default defineConfig({
  test: {
    include: chaos ? ['test/**/*.chaos.test.ts'] : ['test/**/*.test.ts'],
    exclude: chaos ? [] : ['test/**/*.chaos.test.ts'],
    // One system of many processes for the whole matrix; its rows run in order, never side by side.
    fileParallelism: false,
    testTimeout: 420_000,
    hookTimeout: 600_000,
    teardownTimeout: 60_000,
  },
});
