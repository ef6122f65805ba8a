import { runService } from '@omc/service-kit';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { createDeps } from './deps.js';
import { listenInternal } from './internal.js';

await runService({
  name: 'gateway',
  loadConfig: () => loadConfig(),
  createDeps,
  buildApp: async (deps) => {
    const app = await buildApp(deps);
    await listenInternal(deps, app, { port: deps.config.GATEWAY_INTERNAL_PORT, host: deps.config.HOST });
    return app;
  },
  port: (c) => c.GATEWAY_PORT,
  host: (c) => c.HOST,
  graceMs: (c) => c.SHUTDOWN_GRACE_MS,
});
