// OpenTelemetry's standard variables, as every service's configuration reads them (baseEnvSchema), and
// what they mean: the sampler, the resource. tracing.ts starts the SDK with them.
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  type Sampler,
} from '@opentelemetry/sdk-trace-node';
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
  /** How spans travel to the collector: OTLP over HTTP as protobuf (the standard's default) or as JSON. */
  OTEL_EXPORTER_OTLP_PROTOCOL: z
    .enum(['http/protobuf', 'http/json'], 'must be http/protobuf or http/json (OTLP over HTTP)')
    .default('http/protobuf'),
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
