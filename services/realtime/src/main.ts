import { runService } from '@omc/service-kit';
import { buildApp, start } from './app.js';
import { loadConfig } from './config.js';
import { createDeps } from './deps.js';

await runService({ name: 'realtime', loadConfig, createDeps, buildApp, start });
