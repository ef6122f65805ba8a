import { runService } from '@omc/service-kit';
import { buildApp } from './app.js';
import { loadConfig } from './config.js';
import { createDeps } from './deps.js';

await runService({ name: 'gateway', loadConfig, createDeps, buildApp, port: (c) => c.GATEWAY_PORT });
