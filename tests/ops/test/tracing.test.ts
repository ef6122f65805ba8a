// One purchase, one trace: the whole system started as `npm start` starts it, with
// OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver in this test. A player buys clicks through
// the gateway; the spans the processes export must link, by one trace id, the gateway's checkout request,
// payments' handling of it and its call to auth, the outbox's publish of the purchase, the game's credit,
// the state the game then publishes and realtime's broadcast of it; the services' log lines written in
// those spans carry the trace id. A client's own traceparent does not get past the gateway.
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type System } from '@omc/infra';
import { ROOT } from '../src/repo.js';

interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
}

const spans: ExportedSpan[] = [];
let receiver: Server;
let system: System;
const dir = join(ROOT, '.data', 'test', `ops-tracing-${process.pid}`);

/** OTLP/HTTP JSON (what @opentelemetry/exporter-trace-otlp-http sends): resourceSpans → scopeSpans → spans. */
function collect(body: Buffer, encoding: string | undefined): void {
  const text = (encoding === 'gzip' ? gunzipSync(body) : body).toString('utf8');
  const payload = JSON.parse(text) as {
    resourceSpans: {
      resource: { attributes: { key: string; value: { stringValue?: string } }[] };
      scopeSpans: { spans: Omit<ExportedSpan, 'service'>[] }[];
    }[];
  };
  for (const resource of payload.resourceSpans) {
    const service =
      resource.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
    for (const scope of resource.scopeSpans)
      for (const span of scope.spans)
        spans.push({
          service,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? '',
          name: span.name,
          kind: span.kind,
        });
  }
}

beforeAll(async () => {
  receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      if (request.url === '/v1/traces') collect(Buffer.concat(chunks), request.headers['content-encoding']);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const { port } = receiver.address() as AddressInfo;
  system = await startSystem({
    root: ROOT,
    dir,
    persistent: false,
    ports: 'free',
    logs: 'files',
    env: { RATE_LIMIT_PER_IP: '0', OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` },
    log: () => undefined,
  });
}, 300_000);

afterAll(async () => {
  await system?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

async function call(
  method: string,
  path: string,
  token?: string,
  body?: unknown,
  headers: Record<string, string> = {},
) {
  const response = await fetch(system.gatewayUrl + path, {
    method,
    headers: {
      ...headers,
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body ? { 'content-type': 'application/json' } : {}),
    },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

async function until<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 30_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const SERVER = 2;
const PRODUCER = 4;
const CONSUMER = 5;

describe('one purchase, one trace', () => {
  it('links the checkout, the call to auth, the outbox, the game credit and the broadcast', async () => {
    const username = `tr${randomBytes(4).toString('hex')}`;
    const registered = await call('POST', '/api/user/register', undefined, {
      username,
      email: `${username}@example.com`,
      password: 'tracing-password-1',
    });
    expect(registered.status, JSON.stringify(registered.body)).toBeLessThan(300);
    const token = registered.body.token as string;
    await until('the game to know the player', async () =>
      (await call('GET', '/api/game/profile', token)).status === 200 ? true : undefined,
    );

    // A client that claims a trace of its own: the gateway starts a new one all the same.
    const claimed = '0af7651916cd43dd8448eb211c80319c';
    const purchase = await call(
      'POST',
      '/api/payments/checkout',
      token,
      {
        paymentMethodNonce: 'fake-valid-nonce',
        amount: '0.99',
        idempotencyKey: `trace_${randomBytes(8).toString('hex')}`,
      },
      { traceparent: `00-${claimed}-b7ad6b7169203331-01` },
    );
    expect(purchase.status, JSON.stringify(purchase.body)).toBe(200);

    const checkout = await until('the gateway span of the checkout', () =>
      spans.find(
        (s) =>
          s.service === 'gateway' &&
          s.kind === SERVER &&
          s.name.startsWith('POST') &&
          s.name.includes('/api/payments'),
      ),
    );
    const traceId = checkout.traceId;
    expect(traceId).not.toBe(claimed);
    expect(checkout.parentSpanId).toBe('');

    const inTrace = (service: string, kind: number, name: (n: string) => boolean) => () =>
      spans.find((s) => s.traceId === traceId && s.service === service && s.kind === kind && name(s.name));
    const payments = await until(
      'payments serving the checkout',
      inTrace('payments', SERVER, (n) => n === 'POST /api/payments/checkout'),
    );
    const auth = await until(
      'auth asked for the account',
      inTrace('auth', SERVER, (n) => n.startsWith('GET /internal')),
    );
    const published = await until(
      'the outbox publishing the purchase',
      inTrace('payments', PRODUCER, (n) => n === 'publish payments.purchase.completed.v1'),
    );
    const credited = await until(
      'the game crediting the purchase',
      inTrace('game', CONSUMER, (n) => n === 'process payments.purchase.completed.v1'),
    );
    const state = await until(
      'the game publishing its new state',
      inTrace('game', PRODUCER, (n) => n === 'publish game.state.v1'),
    );
    const broadcast = await until(
      'realtime broadcasting it',
      inTrace('realtime', CONSUMER, (n) => n === 'broadcast game.state.v1'),
    );

    // Parent links, hop by hop.
    expect(payments.parentSpanId).toBe(checkout.spanId);
    expect(auth.parentSpanId).toBe(payments.spanId);
    expect(published.parentSpanId).toBe(payments.spanId);
    expect(credited.parentSpanId).toBe(published.spanId);
    expect(state.parentSpanId).toBe(credited.spanId);
    expect(broadcast.parentSpanId).toBe(state.spanId);
    expect(spans.some((s) => s.traceId === claimed)).toBe(false);

    // Log lines inside those spans carry the trace id.
    const logs = readdirSync(join(dir, 'logs')).map((f) => readFileSync(join(dir, 'logs', f), 'utf8'));
    const withTrace = logs
      .join('\n')
      .split('\n')
      .filter((line) => line.includes(`"traceId":"${traceId}"`));
    expect(withTrace.length, 'log lines with the trace id').toBeGreaterThan(0);
  });
});
