// OpenTelemetry traces from the SDK (@opentelemetry/sdk-node), off unless OTEL_EXPORTER_OTLP_ENDPOINT is
// set (and OTEL_SDK_DISABLED is not). On, every service exports its spans by OTLP/HTTP to
// `<endpoint>/v1/traces`, and its instrumentations make the spans: http (every request served and made
// with node:http), undici (fetch and the gateway's proxy), fastify (the route, its hooks and handler),
// pg (every query) and ioredis (every command). The W3C trace context travels with every request
// between our processes and, by the hand-made publish and consume spans below, inside the headers of
// every NATS event, so one click or purchase is one trace from the gateway to realtime's broadcast.
// Log lines inside a span carry its `traceId` and `spanId`.
//
// The SDK must hook module loading before fastify, pg and ioredis load: each service's main.ts awaits
// startTracing() first and imports the service's own modules after it. Off, nothing of the SDK is even
// loaded: the hooks below return at once (one boolean test), so the click path costs what it did
// without tracing.
import { register } from 'node:module';
import {
  context,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type TextMapPropagator,
  type Tracer,
} from '@opentelemetry/api';
import { headers as natsHeaders, type MsgHdrs } from 'nats';
import { ConfigError, parseConfig } from './config.js';
import { hookUrl } from './tracing-hook.js';
import {
  resourceAttributes,
  samplerFrom,
  tracingEnvSchema,
  type TracingSettings,
} from './tracing-settings.js';

export * from './tracing-settings.js';

/** Requests no one traces: probes and scrapes, several a second per pod. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

let tracer: Tracer | undefined;
let shutdown: (() => Promise<void>) | undefined;
/** W3C trace context for NATS headers: continued by every service, the gateway included. */
let eventPropagator: TextMapPropagator | undefined;

/** Whether this process records spans. */
export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

export interface TracingOptions {
  /**
   * false: a caller's `traceparent` is not continued and every request starts a trace of its own (the
   * gateway: a client does not choose the trace its request joins). Default true.
   */
  continueIncoming?: boolean;
}

/**
 * Starts the OpenTelemetry SDK for this process when OTEL_EXPORTER_OTLP_ENDPOINT asks for it (once;
 * later calls do nothing). Must run before the modules it instruments (fastify, pg, ioredis) are
 * imported. A bad OTEL_* value stops the process (exit 78) naming the variable.
 */
export async function startTracing(service: string, options: TracingOptions = {}): Promise<void> {
  if (tracer) return;
  let settings: TracingSettings;
  try {
    settings = parseConfig(tracingEnvSchema);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(`[${service}] ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
  if (settings.OTEL_EXPORTER_OTLP_ENDPOINT === '' || settings.OTEL_SDK_DISABLED) return;

  // ESM: the modules to instrument are wrapped as they load by import-in-the-middle's loader hook,
  // told which ones by the instrumentations as they are enabled (and only those: our TypeScript,
  // loaded through tsx's hook or bundled, is left alone).
  const { createAddHookMessageChannel } = await import('import-in-the-middle');
  const { registerOptions, waitForAllMessagesAcknowledged } = createAddHookMessageChannel();
  register(hookUrl(), import.meta.url, registerOptions);

  const [sdkNode, { HttpInstrumentation }, { UndiciInstrumentation }, { PgInstrumentation }] =
    await Promise.all([
      import('@opentelemetry/sdk-node'),
      import('@opentelemetry/instrumentation-http'),
      import('@opentelemetry/instrumentation-undici'),
      import('@opentelemetry/instrumentation-pg'),
    ]);
  const [{ IORedisInstrumentation }, { FastifyOtelInstrumentation }, exporter] = await Promise.all([
    import('@opentelemetry/instrumentation-ioredis'),
    import('@fastify/otel'),
    traceExporter(settings),
  ]);
  const { NodeSDK, core, resources, tracing } = sdkNode;

  const w3c = new core.W3CTraceContextPropagator();
  eventPropagator = w3c;
  const ignored = (path: string | undefined) => UNTRACED_PATHS.has((path ?? '').split('?')[0]!);
  const sdk = new NodeSDK({
    resource: resources.resourceFromAttributes(resourceAttributes(service, settings)),
    autoDetectResources: false,
    sampler: samplerFrom(settings),
    spanProcessors: [new tracing.BatchSpanProcessor(exporter, { scheduledDelayMillis: 500 })],
    // Traces only: no log or metric exporters from the environment (logs are pino's, metrics Prometheus').
    logRecordProcessors: [],
    metricReaders: [],
    textMapPropagator:
      options.continueIncoming === false
        ? {
            inject: (ctx, carrier, setter) => w3c.inject(ctx, carrier, setter),
            extract: (ctx) => ctx,
            fields: () => w3c.fields(),
          }
        : w3c,
    instrumentations: [
      new HttpInstrumentation({
        ignoreIncomingRequestHook: (request) => ignored(request.url),
        // Calls made outside any trace (background polls) make no trace of their own.
        requireParentforOutgoingSpans: true,
      }),
      new UndiciInstrumentation({ requireParentforSpans: true }),
      new FastifyOtelInstrumentation({
        registerOnInitialization: true,
        // The route's request and handler spans; one span per hook would multiply the spans per request.
        instrumentHooks: false,
        ignorePaths: (route) => UNTRACED_PATHS.has(route.url),
      }),
      new PgInstrumentation({ requireParentSpan: true }),
      new IORedisInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  await waitForAllMessagesAcknowledged();
  tracer = trace.getTracer('one-million-clicks');
  shutdown = () => sdk.shutdown();
}

/** The OTLP/HTTP exporter of OTEL_EXPORTER_OTLP_PROTOCOL, to `<endpoint>/v1/traces`. */
async function traceExporter(settings: TracingSettings) {
  const endpoint = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
  const url = `${endpoint.endsWith('/') ? endpoint.slice(0, -1) : endpoint}/v1/traces`;
  if (settings.OTEL_EXPORTER_OTLP_PROTOCOL === 'http/json') {
    const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
    return new OTLPTraceExporter({ url });
  }
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url });
}

/** Flushes the spans still buffered and stops the SDK (at shutdown); nothing when tracing is off. */
export async function stopTracing(): Promise<void> {
  await shutdown?.().catch(() => undefined);
}

/** Pino's mixin: the active span's ids on every log line written inside it. */
export function traceLogFields(): Record<string, string> {
  if (!tracer) return {};
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

// --- events ----------------------------------------------------------------------------------------

/** The active trace context as a W3C carrier, to store with an event in the outbox; undefined when off. */
export function traceCarrier(): Record<string, string> | undefined {
  if (!eventPropagator || !trace.getActiveSpan()) return undefined;
  const carrier: Record<string, string> = {};
  eventPropagator.inject(context.active(), carrier, { set: (c, k, v) => (c[k] = v) });
  return carrier;
}

const recordGetter = {
  get: (carrier: Record<string, string>, key: string) => carrier[key],
  keys: (carrier: Record<string, string>) => Object.keys(carrier),
};

/**
 * NATS headers for a message sent on behalf of `carrier` (a stored trace context), inside a producer
 * span that `publish` runs in. Without tracing or a carrier, `publish` gets no headers.
 */
export async function publishTraced<T>(
  subject: string,
  carrier: Record<string, string> | undefined,
  publish: (headers: MsgHdrs | undefined) => Promise<T> | T,
): Promise<T> {
  if (!tracer || !eventPropagator || !carrier) return publish(undefined);
  const parent = eventPropagator.extract(ROOT_CONTEXT, carrier, recordGetter);
  const span = tracer.startSpan(
    `publish ${subject}`,
    {
      kind: SpanKind.PRODUCER,
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject },
    },
    parent,
  );
  const ctx = trace.setSpan(parent, span);
  const headers = natsHeaders();
  eventPropagator.inject(ctx, headers, natsSetter);
  try {
    return await context.with(ctx, () => publish(headers));
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}

/** Runs `work` in a consumer span, child of the trace the message's headers carry (if any). */
export async function consumeTraced<T>(
  subject: string,
  headers: MsgHdrs | undefined,
  work: () => Promise<T> | T,
  name = `process ${subject}`,
): Promise<T> {
  if (!tracer || !eventPropagator) return work();
  const parent = headers ? eventPropagator.extract(ROOT_CONTEXT, headers, natsGetter) : ROOT_CONTEXT;
  const span = tracer.startSpan(
    name,
    {
      kind: SpanKind.CONSUMER,
      attributes: { 'messaging.system': 'nats', 'messaging.destination.name': subject },
    },
    parent,
  );
  try {
    return await context.with(trace.setSpan(parent, span), work);
  } catch (error) {
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    throw error;
  } finally {
    span.end();
  }
}

const natsSetter = {
  set: (carrier: MsgHdrs, key: string, value: string) => carrier.set(key, value),
};
const natsGetter = {
  get: (carrier: MsgHdrs, key: string) => carrier.get(key) || undefined,
  keys: (carrier: MsgHdrs) => carrier.keys(),
};
