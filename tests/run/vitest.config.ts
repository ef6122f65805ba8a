import { defineConfig } from 'vitest/config';

// `npm test` leaves the long fault suites (`*.chaos.test.ts`) to `npm run test:chaos`, which sets
// OMC_SUITE=chaos.
const chaos = process.env.OMC_SUITE === 'chaos';

export default defineConfig({
  test: {
    include: chaos ? ['test/**/*.chaos.test.ts'] : ['test/**/*.test.ts'],
    exclude: chaos ? [] : ['test/**/*.chaos.test.ts'],
    // Each file drives whole systems (a compose project, `npm start`): one at a time on a small machine.
    fileParallelism: false,
    // Files share the worker's modules (none mocks one): loaded once, not once a file.
    isolate: false,
    testTimeout: 300_000,
    // A cold image build, or installing Debian's docker.io, tmux or debootstrap, takes minutes.
    hookTimeout: 1_200_000,
  },
});
