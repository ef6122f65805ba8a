import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Each file drives whole systems (a compose project, `npm start`): one at a time on a small machine.
    fileParallelism: false,
    testTimeout: 300_000,
    // A cold image build, or installing Debian's docker.io, tmux or debootstrap, takes minutes.
    hookTimeout: 1_200_000,
  },
});
