import { defineConfig } from 'vitest/config';

// Only the unit tests of the report's arithmetic: the benchmarks themselves run with `npm run bench`.
export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    testTimeout: 5_000,
  },
});
