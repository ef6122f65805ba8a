// The life of a service process: config -> deps -> app -> listen, and on SIGTERM/SIGINT a graceful close
// (stop accepting, finish in-flight requests, close connections) within a bounded time.
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { ConfigError } from './config.js';
import { startTracing, type TracingSettings } from './tracing.js';

export interface RunOptions<C, D extends { close(): Promise<void> }> {
  name: string;
  loadConfig: () => C;
  createDeps: (config: C) => Promise<D>;
  buildApp: (deps: D) => Promise<FastifyInstance>;
  port: (config: C) => number;
  host: (config: C) => string;
  graceMs?: (config: C) => number;
}

export async function runService<C, D extends { close(): Promise<void> }>(options: RunOptions<C, D>): Promise<void> {
  let config: C;
  try {
    config = options.loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`[${options.name}] ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
  // Before anything logs or serves: loggers and servers made from here on carry the trace context.
  const stopTracing = startTracing(options.name, config as Partial<TracingSettings>);
  const deps = await options.createDeps(config);
  const app = await options.buildApp(deps);
  closeWithGrace({ delay: options.graceMs?.(config) ?? 10_000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an uncaught error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    await deps.close();
    await stopTracing();
  });
  await app.listen({ port: options.port(config), host: options.host(config) });
}
