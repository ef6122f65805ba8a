import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['./test/global-setup.ts'],
    fileParallelism: false,
    // Files share the worker's modules (none mocks one): loaded once, not once a file.
    isolate: false,
    // Above a test's waits for settled money (60 s each, test/refunds.test.ts), so a slow machine fails
    // with what was not settled, not with a bare timeout.
    testTimeout: 300_000,
    hookTimeout: 180_000,
  },
});
