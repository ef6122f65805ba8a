// The life of a service process: config -> deps -> buildApp -> start -> listen, and on SIGTERM/SIGINT a
// graceful close (stop accepting, finish in-flight requests, close connections) within a bounded time.
import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import { ConfigError } from './config.js';
import { listenMetrics } from './metrics.js';
import type { Started } from './started.js';
import { stopTracing } from './tracing.js';

/** The settings every service's config has under these names. */
interface RunConfig {
  PORT?: number;
  METRICS_PORT?: number;
  HOST: string;
  SHUTDOWN_GRACE_MS: number;
}

export interface RunOptions<
  C extends RunConfig,
  D extends { close(): Promise<void> },
  A extends FastifyInstance,
> {
  name: string;
  loadConfig: () => C;
  createDeps: (config: C) => Promise<D>;
  /** Builds the app and does nothing else. */
  buildApp: (deps: D) => Promise<A>;
  /**
   * Migrations, streams, bootstrap steps, consumers and timers: what a built app needs before serving.
   * What it started is stopped once the app is closed (started.ts).
   */
  start?: (app: A) => Promise<Started>;
  /** The port setting, when it is not PORT. */
  port?: (config: C) => number;
}

export async function runService<
  C extends RunConfig,
  D extends { close(): Promise<void> },
  A extends FastifyInstance,
>(options: RunOptions<C, D, A>): Promise<void> {
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
  const deps = await options.createDeps(config);
  const app = await options.buildApp(deps);
  // A signal during start() closes the app and what start() has made so far (nothing, until it returns).
  let started: Started | undefined = undefined;
  closeWithGrace({ delay: config.SHUTDOWN_GRACE_MS }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an uncaught error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    await started?.stop();
    await deps.close();
    await stopTracing();
  });
  started = await options.start?.(app);
  await app.listen({ port: options.port?.(config) ?? config.PORT ?? 0, host: config.HOST });
  if (config.METRICS_PORT) await listenMetrics(app, config.METRICS_PORT, config.HOST);
}
