// What every service's createDeps shares: one logger (also Fastify's), its metrics registry, a clock,
// and a close that ends each connection in turn.
import type { Logger } from 'pino';
import { createLogger } from './logger.js';
import { createMetrics, type Metrics } from './metrics.js';

export interface BaseDeps {
  log: Logger;
  metrics: Metrics;
  clock: () => number;
  close(): Promise<void>;
}

export interface BaseDepsOptions {
  name: string;
  logLevel: string;
  /** Extra fields on every log line (e.g. a realtime instance's name). */
  logBase?: Record<string, unknown>;
}

export function baseDeps(options: BaseDepsOptions): Omit<BaseDeps, 'close'> {
  return {
    log: createLogger(options.name, options.logLevel, options.logBase),
    metrics: createMetrics(options.name),
    clock: () => Date.now(),
  };
}

/** A close() that runs each step in order, even when an earlier one fails (the first failure is thrown). */
export function closeInOrder(...steps: Array<() => unknown>): () => Promise<void> {
  return async () => {
    const failures: unknown[] = [];
    for (const step of steps)
      await Promise.resolve()
        .then(step)
        .catch((error) => failures.push(error));
    if (failures.length > 0) throw failures[0];
  };
}
