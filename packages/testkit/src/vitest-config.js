// The vitest configuration of a package whose tests run against the real servers. Plain JavaScript:
// vitest loads a configuration's imports with Node, which runs no TypeScript.
import { defineConfig } from 'vitest/config';

export function serviceTestConfig() {
  return defineConfig({
    test: {
      globalSetup: ['./test/global-setup.ts'],
      // Test files share one set of servers; each file gets its own database, and runs alone.
      fileParallelism: false,
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  });
}
