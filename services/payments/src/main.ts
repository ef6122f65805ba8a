// The OpenTelemetry SDK first (off unless OTEL_EXPORTER_OTLP_ENDPOINT is set): it hooks module loading,
// so the service's modules (fastify, pg, ioredis with them) are imported after it.
import { startTracing } from '@omc/service-kit/tracing';

await startTracing('payments');
const { runService } = await import('@omc/service-kit');
const { buildApp, start } = await import('./app.js');
const { loadConfig } = await import('./config.js');
const { createDeps } = await import('./deps.js');

await runService({ name: 'payments', loadConfig, createDeps, buildApp, start });
