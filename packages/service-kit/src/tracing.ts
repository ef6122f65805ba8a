// OpenTelemetry traces, off unless OTEL_EXPORTER_OTLP_ENDPOINT is set (and OTEL_SDK_DISABLED is not): then every service exports its
// spans by OTLP/HTTP (JSON) to `<endpoint>/v1/traces`, and the W3C trace context (`traceparent`,
// `tracestate`) travels with every request between our processes and inside the headers of every NATS
// event, so one purchase is one trace: the checkout at the gateway and in payments, payments' call to
// auth, the outbox's publish, the game's credit, the state it publishes and realtime's broadcast.
// Log lines inside a span carry its `traceId` and `spanId`.
//
// Off, none of this runs: the hooks below return at once (one boolean test) and no span, context or
// header is made, so the click path costs what it did without tracing.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-node';
import type { FastifyInstance } from 'fastify';
import { headers as natsHeaders, type MsgHdrs } from 'nats';
import { z } from 'zod';

const SAMPLERS = [
  'always_on',
  'always_off',
  'traceidratio',
  'parentbased_always_on',
  'parentbased_always_off',
  'parentbased_traceidratio',
] as const;

/** `key=value,key=value` (values percent-encoded), as OpenTelemetry's OTEL_RESOURCE_ATTRIBUTES. */
const resourceAttributesText = z
  .string()
  .default('')
  .transform((text, ctx) => {
    const attributes: Record<string, string> = {};
    for (const pair of text.split(',').filter((p) => p.trim() !== '')) {
      const at = pair.indexOf('=');
      if (at <= 0) {
        ctx.addIssue({ code: 'custom', message: `"${pair}" is not key=value (comma-separated pairs)` });
        return z.NEVER;
      }
      try {
        attributes[pair.slice(0, at).trim()] = decodeURIComponent(pair.slice(at + 1).trim());
      } catch {
        ctx.addIssue({ code: 'custom', message: `"${pair}" has a badly percent-encoded value` });
        return z.NEVER;
      }
    }
    return attributes;
  });

/**
 * The tracing settings every service's configuration includes (baseEnvSchema): OpenTelemetry's standard
 * variables (https://opentelemetry.io/docs/specs/otel/configuration/sdk-environment-variables/).
 */
export const tracingEnvSchema = z.object({
  /** OTLP/HTTP collector base URL (e.g. http://otel-collector:4318); empty: tracing off. */
  OTEL_EXPORTER_OTLP_ENDPOINT: z
    .string()
    .default('')
    .refine((value) => {
      if (value === '') return true;
      try {
        return ['http:', 'https:'].includes(new URL(value).protocol);
      } catch {
        return false;
      }
    }, 'must be an http(s) URL of an OTLP/HTTP collector, or empty to turn tracing off'),
  /** true: no tracing even with an endpoint. */
  OTEL_SDK_DISABLED: z
    .enum(['true', 'false'], 'must be true or false')
    .default('false')
    .transform((v) => v === 'true'),
  /** Which traces are recorded; parent-based samplers follow a caller's decision. */
  OTEL_TRACES_SAMPLER: z
    .enum(SAMPLERS, `must be one of ${SAMPLERS.join(', ')}`)
    .default('parentbased_always_on'),
  /** The ratio samplers' share of new traces, 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce
    .number('must be a number from 0 to 1')
    .min(0, 'must be from 0 to 1')
    .max(1, 'must be from 0 to 1')
    .default(1),
  /** service.name on every span; empty: the service's own name (auth, game, ...). */
  OTEL_SERVICE_NAME: z.string().default(''),
  /** More resource attributes on every span (deployment.environment=prod,...). */
  OTEL_RESOURCE_ATTRIBUTES: resourceAttributesText,
});

export type TracingSettings = z.infer<typeof tracingEnvSchema>;

/** The sampler OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG name. */
export function samplerFrom(settings: Partial<TracingSettings>): Sampler {
  const ratio = settings.OTEL_TRACES_SAMPLER_ARG ?? 1;
  switch (settings.OTEL_TRACES_SAMPLER ?? 'parentbased_always_on') {
    case 'always_on':
      return new AlwaysOnSampler();
    case 'always_off':
      return new AlwaysOffSampler();
    case 'traceidratio':
      return new TraceIdRatioBasedSampler(ratio);
    case 'parentbased_always_off':
      return new ParentBasedSampler({ root: new AlwaysOffSampler() });
    case 'parentbased_traceidratio':
      return new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) });
    case 'parentbased_always_on':
      return new ParentBasedSampler({ root: new AlwaysOnSampler() });
  }
}

/** The resource's attributes: OTEL_RESOURCE_ATTRIBUTES, and service.name (OTEL_SERVICE_NAME or the service's). */
export function resourceAttributes(
  service: string,
  settings: Partial<TracingSettings>,
): Record<string, string> {
  return {
    ...settings.OTEL_RESOURCE_ATTRIBUTES,
    'service.name': settings.OTEL_SERVICE_NAME || service,
  };
}

let tracer: Tracer | undefined;
let provider: NodeTracerProvider | undefined;

/** Whether this process records spans. */
export function tracingEnabled(): boolean {
  return tracer !== undefined;
}

/**
 * Starts tracing for this process when the settings ask for it (once; later calls do nothing). Returns
 * a function that flushes and stops the exporter.
 */
export function startTracing(service: string, settings: Partial<TracingSettings>): () => Promise<void> {
  const endpoint = settings.OTEL_EXPORTER_OTLP_ENDPOINT ?? '';
  if (endpoint === '' || settings.OTEL_SDK_DISABLED || provider) return async () => undefined;
  provider = new NodeTracerProvider({
    resource: resourceFromAttributes(resourceAttributes(service, settings)),
    sampler: samplerFrom(settings),
    spanProcessors: [
      new BatchSpanProcessor(
        new OTLPTraceExporter({
          url: `${endpoint.endsWith('/') ? endpoint.slice(0, -1) : endpoint}/v1/traces`,
        }),
        {
          scheduledDelayMillis: 500,
        },
      ),
    ],
  });
  // The AsyncLocalStorage context manager and the W3C trace-context propagator.
  provider.register();
  tracer = trace.getTracer('one-million-clicks');
  const stopping = provider;
  return async () => {
    await stopping.forceFlush().catch(() => undefined);
    await stopping.shutdown().catch(() => undefined);
  };
}

/** Pino's mixin: the active span's ids on every log line written inside it. */
export function traceLogFields(): Record<string, string> {
  if (!tracer) return {};
  const span = trace.getActiveSpan();
  if (!span) return {};
  const { traceId, spanId } = span.spanContext();
  return { traceId, spanId };
}

// --- HTTP ------------------------------------------------------------------------------------------

const requestSpans = new WeakMap<object, { span: Span; context: Context }>();

/**
 * A server span per request, child of the caller's `traceparent` when there is one. The span is active
 * from the pre-handler on (after the body is read), so whatever the handler does belongs to it.
 */
export function registerTracing(app: FastifyInstance, traceIncoming = true): void {
  if (!tracer) return;
  const active = tracer;
  app.addHook('onRequest', (request, _reply, done) => {
    const parent = traceIncoming ? propagation.extract(ROOT_CONTEXT, request.headers) : ROOT_CONTEXT;
    const span = active.startSpan(
      `${request.method} ${request.routeOptions.url ?? 'unmatched'}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'http.route': request.routeOptions.url ?? 'unmatched',
          'url.path': request.url.split('?')[0]!,
          'omc.request_id': request.id,
        },
      },
      parent,
    );
    const ctx = trace.setSpan(parent, span);
    requestSpans.set(request, { span, context: ctx });
    context.with(ctx, done);
  });
  app.addHook('preHandler', (request, _reply, done) => {
    const entry = requestSpans.get(request);
    if (entry) context.with(entry.context, done);
    else done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const entry = requestSpans.get(request);
    if (entry) {
      entry.span.setAttribute('http.response.status_code', reply.statusCode);
      if (reply.statusCode >= 500) entry.span.setStatus({ code: SpanStatusCode.ERROR });
      entry.span.end();
      requestSpans.delete(request);
    }
    done();
  });
}

/**
 * Headers for a call to another of our services: `traceparent` (and `tracestate`) of the given request's
 * span, or of the active span; the same object back, untouched, when tracing is off.
 */
export function withTraceHeaders<H extends Record<string, unknown>>(headers: H, request?: object): H {
  if (!tracer) return headers;
  const ctx = (request && requestSpans.get(request)?.context) ?? context.active();
  propagation.inject(ctx, headers);
  return headers;
}

// --- events ----------------------------------------------------------------------------------------

/** The active trace context as a W3C carrier, to store with an event in the outbox; undefined when off. */
export function traceCarrier(): Record<string, string> | undefined {
  if (!tracer || !trace.getActiveSpan()) return undefined;
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  return carrier;
}

/**
 * NATS headers for a message sent on behalf of `carrier` (a stored trace context), inside a producer
 * span that `publish` runs in. Without tracing or a carrier, `publish` gets no headers.
 */
export async function publishTraced<T>(
  subject: string,
  carrier: Record<string, string> | undefined,
  publish: (headers: MsgHdrs | undefined) => Promise<T> | T,
): Promise<T> {
  if (!tracer || !carrier) return publish(undefined);
  const parent = propagation.extract(ROOT_CONTEXT, carrier);
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
  propagation.inject(ctx, headers, natsSetter);
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
  if (!tracer) return work();
  const parent = headers ? propagation.extract(ROOT_CONTEXT, headers, natsGetter) : ROOT_CONTEXT;
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
