// Prometheus metrics on /metrics: request rates and latencies for every service, plus whatever each
// service registers on the returned registry. One registry per app, so tests can build several.
import type { FastifyInstance } from 'fastify';
import { readinessOf } from './health.js';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

/**
 * Buckets (seconds) of every stage of a click's way from button to screen, so the stages read alike
 * beside their budget (docs/performance.md, "The latency budget").
 */
export const STAGE_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.125, 0.15, 0.25, 0.5, 1, 2.5,
];

export interface Metrics {
  registry: Registry;
  counter<L extends string>(name: string, help: string, labelNames?: readonly L[]): Counter<L>;
  gauge<L extends string>(
    name: string,
    help: string,
    labelNames?: readonly L[],
    collect?: (this: Gauge<L>) => void | Promise<void>,
  ): Gauge<L>;
  histogram<L extends string>(
    name: string,
    help: string,
    labelNames?: readonly L[],
    buckets?: number[],
  ): Histogram<L>;
}

/**
 * How often the event loop's delay is sampled for nodejs_eventloop_lag_*. prom-client's default (10 ms)
 * wakes an idle process about 200 times a second, most of an idle realtime pod's CPU; a block longer
 * than this is still caught whenever it spans a sample, and the percentiles over a scrape interval hold.
 */
export const EVENT_LOOP_SAMPLE_MS = 100;

export function createMetrics(service: string, defaults = true): Metrics {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  if (defaults)
    collectDefaultMetrics({ register: registry, eventLoopMonitoringPrecision: EVENT_LOOP_SAMPLE_MS });
  return {
    registry,
    counter: <L extends string>(name: string, help: string, labelNames: readonly L[] = []) =>
      new Counter({ name, help, labelNames: [...labelNames], registers: [registry] }),
    gauge: <L extends string>(
      name: string,
      help: string,
      labelNames: readonly L[] = [],
      collect?: (this: Gauge<L>) => void | Promise<void>,
    ) =>
      new Gauge({
        name,
        help,
        labelNames: [...labelNames],
        registers: [registry],
        ...(collect ? { collect } : {}),
      }),
    histogram: <L extends string>(
      name: string,
      help: string,
      labelNames: readonly L[] = [],
      buckets?: number[],
    ) =>
      new Histogram({
        name,
        help,
        labelNames: [...labelNames],
        registers: [registry],
        ...(buckets ? { buckets } : {}),
      }),
  };
}

const listeners = new WeakMap<FastifyInstance, FastifyInstance>();

/**
 * Times `app`'s requests and exports its readiness. /metrics is served on `app` itself, or, given a
 * listener (a server of its own, on METRICS_PORT), there alone: it closes with `app`.
 */
export function registerMetrics(app: FastifyInstance, metrics: Metrics, listener?: FastifyInstance): void {
  observeRequests(app, metrics);
  if (!listener) return serveMetrics(app, metrics);
  exportReadiness(app, metrics);
  metricsRoute(listener, metrics);
  listeners.set(app, listener);
  app.addHook('onClose', async () => {
    await listener.close();
  });
}

/** Starts `app`'s metrics listener, if it has one (runService calls it once `app` listens). */
export async function listenMetrics(app: FastifyInstance, port: number, host: string): Promise<void> {
  await listeners.get(app)?.listen({ port, host });
}

/** Times every request of `app` into http_request_duration_seconds (health and metrics requests aside). */
export function observeRequests(app: FastifyInstance, metrics: Metrics): void {
  const duration = metrics.histogram(
    'http_request_duration_seconds',
    'HTTP request latency',
    ['method', 'route', 'status'],
    [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
  );
  app.addHook('onResponse', async (request, reply) => {
    const route = request.routeOptions.url ?? 'unmatched';
    if (route === '/metrics' || route === '/healthz' || route === '/readyz') return;
    duration.observe(
      { method: request.method, route, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
  });
}

/** GET /metrics on `app`: the registry in Prometheus's text format (the gateway serves it on its internal listener). */
export function serveMetrics(app: FastifyInstance, metrics: Metrics): void {
  exportReadiness(app, metrics);
  metricsRoute(app, metrics);
}

function exportReadiness(app: FastifyInstance, metrics: Metrics): void {
  // Readiness as Prometheus sees it: evaluated at each scrape as well as at each probe, and every change
  // counted, so a flapping dependency shows even when the scrapes land between the flaps.
  const readiness = readinessOf(app);
  if (readiness) {
    const changes = metrics.counter(
      'service_readiness_changes_total',
      'Times /readyz changed between ready and not ready',
    );
    changes.inc(0);
    readiness.onChange(() => changes.inc());
    metrics.gauge(
      'service_ready',
      '1 while /readyz answers ready (every store it cannot serve without is up), else 0',
      [],
      async function collect() {
        this.set((await readiness.evaluate()).ready ? 1 : 0);
      },
    );
  }
}

function metricsRoute(app: FastifyInstance, metrics: Metrics): void {
  app.get('/metrics', { logLevel: 'warn' }, async (_request, reply) => {
    reply.header('content-type', metrics.registry.contentType);
    return metrics.registry.metrics();
  });
}
