import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The image-tree test runs pnpm and node processes; one file at a time keeps the machine calm.
    fileParallelism: false,
    // Files share the worker's modules (none mocks one): loaded once, not once a file.
    isolate: false,
    testTimeout: 120_000,
    // Installing Debian's docker-compose, where it is missing, may take a few minutes.
    hookTimeout: 600_000,
  },
});
