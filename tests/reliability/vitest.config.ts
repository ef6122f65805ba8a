import { defineConfig } from 'vitest/config';

// `npm test` leaves the long fault suites (`*.chaos.test.ts`) to `npm run test:chaos`, which sets
// OMC_SUITE=chaos.
const chaos = process.env.OMC_SUITE === 'chaos';

export default defineConfig({
  test: {
    globalSetup: ['./src/global-setup.ts'],
    include: chaos ? ['test/**/*.chaos.test.ts'] : ['test/**/*.test.ts'],
    exclude: chaos ? [] : ['test/**/*.chaos.test.ts'],
    // One system for the whole suite; faults must not overlap, so files run one at a time.
    fileParallelism: false,
    // Files share the worker's modules (none mocks one): loaded once, not once a file.
    isolate: false,
    testTimeout: 180_000,
    hookTimeout: 180_000,
    teardownTimeout: 60_000,
  },
});
