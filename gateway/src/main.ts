import { runService } from '@omc/service-kit';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { createDeps, type Deps } from './deps.js';
import { listenInternal } from './internal.js';

let deps: Deps | undefined;
await runService({
  name: 'gateway',
  loadConfig,
  createDeps: async (config) => (deps = await createDeps(config)),
  buildApp,
  // The internal listener (health, readiness, metrics) closes with the public one.
  start: async (app) => {
    await listenInternal(deps!, app, { port: deps!.config.GATEWAY_INTERNAL_PORT, host: deps!.config.HOST });
  },
  port: (c) => c.GATEWAY_PORT,
});
