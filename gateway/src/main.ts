import { runService } from '@omc/service-kit';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { createDeps } from './deps.js';

await runService({
  name: 'gateway',
  loadConfig: () => loadConfig(),
  createDeps,
  buildApp: (deps) => buildApp(deps),
  port: (c) => c.GATEWAY_PORT,
  host: (c) => c.HOST,
  graceMs: (c) => c.SHUTDOWN_GRACE_MS,
});
