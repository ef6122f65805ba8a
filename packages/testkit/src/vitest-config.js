// The vitest configuration of a package whose tests run against the real servers. Plain JavaScript:
// vitest loads a configuration's imports with Node, which runs no TypeScript.
import { defineConfig } from 'vitest/config';

// Test files wait on servers, timers and child processes more than they compute: two run side by side,
// each with servers of its own (global-setup.ts). Servers given by URL are shared: one file at a time.
const shared = Boolean(process.env.DATABASE_URL || process.env.REDIS_URL || process.env.NATS_URL);
const workers = shared ? 1 : Math.max(1, Number(process.env.OMC_TEST_FILE_WORKERS ?? 2));
// `npm test` leaves the long runs (`*.chaos.test.ts`) to `npm run test:chaos`, which sets OMC_SUITE=chaos.
const chaos = process.env.OMC_SUITE === 'chaos';

export function serviceTestConfig() {
  return defineConfig({
    test: {
      globalSetup: ['./test/global-setup.ts'],
      ...(chaos
        ? { include: ['test/**/*.chaos.test.ts'] }
        : { exclude: ['**/node_modules/**', '**/.git/**', 'test/**/*.chaos.test.ts'] }),
      fileParallelism: workers > 1,
      maxWorkers: workers,
      // A worker keeps the modules it loaded from one file to the next: the services' code is loaded
      // once a worker, not once a file (half the suites' CPU). Each file builds its own app, database
      // and clients; a file that mocks a module imports afresh and forgets it after.
      isolate: false,
      testTimeout: 30_000,
      hookTimeout: 60_000,
    },
  });
}
