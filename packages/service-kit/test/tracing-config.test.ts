// Tracing's settings are OpenTelemetry's standard variables: off by default, an http(s) collector URL or
// nothing, OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES and
// OTEL_SDK_DISABLED, OTEL_EXPORTER_OTLP_PROTOCOL; a bad value stops the service naming the variable.
// Off, the hooks change nothing.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config.js';
import {
  resourceAttributes,
  samplerFrom,
  traceCarrier,
  traceLogFields,
  tracingEnabled,
  tracingEnvSchema,
} from '../src/tracing.js';

describe('tracing settings', () => {
  it('are off by default', () => {
    expect(parseConfig(tracingEnvSchema, {})).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
      OTEL_SDK_DISABLED: false,
      OTEL_TRACES_SAMPLER: 'parentbased_always_on',
      OTEL_TRACES_SAMPLER_ARG: 1,
      OTEL_SERVICE_NAME: '',
      OTEL_RESOURCE_ATTRIBUTES: {},
    });
  });

  it('take an http(s) collector, a standard sampler with its argument, and resource attributes', () => {
    expect(
      parseConfig(tracingEnvSchema, {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
        OTEL_TRACES_SAMPLER_ARG: '0.25',
        OTEL_SERVICE_NAME: 'game-eu',
        OTEL_RESOURCE_ATTRIBUTES: 'deployment.environment=prod,team=clicks%20core',
      }),
    ).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com:4318',
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_SDK_DISABLED: false,
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_TRACES_SAMPLER_ARG: 0.25,
      OTEL_SERVICE_NAME: 'game-eu',
      OTEL_RESOURCE_ATTRIBUTES: { 'deployment.environment': 'prod', team: 'clicks core' },
    });
  });

  it('build the sampler the variables name', () => {
    const sampler = (env: Record<string, string>) =>
      samplerFrom(parseConfig(tracingEnvSchema, env)).toString();
    expect(sampler({})).toBe(
      'ParentBased{root=AlwaysOnSampler, remoteParentSampled=AlwaysOnSampler, remoteParentNotSampled=AlwaysOffSampler, localParentSampled=AlwaysOnSampler, localParentNotSampled=AlwaysOffSampler}',
    );
    expect(sampler({ OTEL_TRACES_SAMPLER: 'always_off' })).toBe('AlwaysOffSampler');
    expect(sampler({ OTEL_TRACES_SAMPLER: 'traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.5' })).toBe(
      'TraceIdRatioBased{0.5}',
    );
    expect(
      sampler({ OTEL_TRACES_SAMPLER: 'parentbased_traceidratio', OTEL_TRACES_SAMPLER_ARG: '0.1' }),
    ).toMatch(/^ParentBased\{root=TraceIdRatioBased\{0\.1\},/);
  });

  it('name the service after OTEL_SERVICE_NAME when set, with the resource attributes beside it', () => {
    const settings = parseConfig(tracingEnvSchema, { OTEL_RESOURCE_ATTRIBUTES: 'service.name=x,region=eu' });
    expect(resourceAttributes('game', settings)).toEqual({ 'service.name': 'game', region: 'eu' });
    expect(
      resourceAttributes('game', parseConfig(tracingEnvSchema, { OTEL_SERVICE_NAME: 'game-eu' })),
    ).toEqual({ 'service.name': 'game-eu' });
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'otel:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://otel:4317' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' }, 'OTEL_EXPORTER_OTLP_PROTOCOL'],
    [{ OTEL_TRACES_SAMPLER: 'sometimes' }, 'OTEL_TRACES_SAMPLER'],
    [{ OTEL_TRACES_SAMPLER_ARG: '2' }, 'OTEL_TRACES_SAMPLER_ARG'],
    [{ OTEL_TRACES_SAMPLER_ARG: 'half' }, 'OTEL_TRACES_SAMPLER_ARG'],
    [{ OTEL_RESOURCE_ATTRIBUTES: 'region' }, 'OTEL_RESOURCE_ATTRIBUTES'],
    [{ OTEL_SDK_DISABLED: 'maybe' }, 'OTEL_SDK_DISABLED'],
  ])('refuse %j naming the variable', (env, name) => {
    expect(() => parseConfig(tracingEnvSchema, env)).toThrow(ConfigError);
    expect(() => parseConfig(tracingEnvSchema, env)).toThrow(name);
  });

  it('off, leave events and log lines as they are', () => {
    expect(tracingEnabled()).toBe(false);
    expect(traceCarrier()).toBeUndefined();
    expect(traceLogFields()).toEqual({});
  });
});
