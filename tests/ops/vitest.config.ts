import { defineConfig } from 'vitest/config';

// `npm test` leaves the long suites (`*.chaos.test.ts`: each image's production tree, deployed and
// started) to `npm run test:chaos`, which sets OMC_SUITE=chaos.
const chaos = process.env.OMC_SUITE === 'chaos';

export default defineConfig({
  test: {
    include: chaos ? ['test/**/*.chaos.test.ts'] : ['test/**/*.test.ts'],
    exclude: chaos ? [] : ['test/**/*.chaos.test.ts'],
    // Files that run pnpm, whole systems and Prometheus: one at a time keeps the machine calm.
    fileParallelism: false,
    // Files share the worker's modules (none mocks one): loaded once, not once a file.
    isolate: false,
    testTimeout: 120_000,
    // Installing Debian's docker-compose, where it is missing, may take a few minutes.
    hookTimeout: 600_000,
  },
});
