import { defineConfig } from 'vitest/config';

// Files share their worker's modules (no file mocks one): loaded once a worker, not once a file.
export default defineConfig({ test: { include: ['test/**/*.test.ts'], isolate: false } });
