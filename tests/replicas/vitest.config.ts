import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One system of many processes for the whole matrix; its rows run in order, never side by side.
    fileParallelism: false,
    testTimeout: 420_000,
    hookTimeout: 600_000,
    teardownTimeout: 60_000,
  },
});
