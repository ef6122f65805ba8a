// Tracing's settings: off by default, an http(s) collector URL or nothing, a sample ratio from 0 to 1; a
// bad value stops the service naming the variable. Off, the hooks change nothing.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../src/config.js';
import {
  traceCarrier,
  traceLogFields,
  tracingEnabled,
  tracingEnvSchema,
  withTraceHeaders,
} from '../src/tracing.js';

describe('tracing settings', () => {
  it('are off by default', () => {
    expect(parseConfig(tracingEnvSchema, {})).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: '',
      OTEL_TRACES_SAMPLE_RATIO: 1,
    });
  });

  it('take an http(s) collector and a ratio', () => {
    expect(
      parseConfig(tracingEnvSchema, {
        OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com:4318',
        OTEL_TRACES_SAMPLE_RATIO: '0.25',
      }),
    ).toEqual({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'https://otel.example.com:4318',
      OTEL_TRACES_SAMPLE_RATIO: 0.25,
    });
  });

  it.each([
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'otel:4318' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://otel:4317' }, 'OTEL_EXPORTER_OTLP_ENDPOINT'],
    [{ OTEL_TRACES_SAMPLE_RATIO: '2' }, 'OTEL_TRACES_SAMPLE_RATIO'],
    [{ OTEL_TRACES_SAMPLE_RATIO: 'half' }, 'OTEL_TRACES_SAMPLE_RATIO'],
  ])('refuse %j naming the variable', (env, name) => {
    expect(() => parseConfig(tracingEnvSchema, env)).toThrow(ConfigError);
    expect(() => parseConfig(tracingEnvSchema, env)).toThrow(name);
  });

  it('off, leave headers, events and log lines as they are', () => {
    expect(tracingEnabled()).toBe(false);
    const headers = { 'x-request-id': 'r1' };
    expect(withTraceHeaders(headers)).toEqual({ 'x-request-id': 'r1' });
    expect(traceCarrier()).toBeUndefined();
    expect(traceLogFields()).toEqual({});
  });
});
