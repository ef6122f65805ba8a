import { runService } from '@omc/service-kit';
import { buildApp, start } from './app.js';
import { loadConfig } from './config.js';
import { createDeps } from './deps.js';

await runService({ name: 'gateway', loadConfig, createDeps, buildApp, start, port: (c) => c.GATEWAY_PORT });
