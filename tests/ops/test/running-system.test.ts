// The running system, observed as operators observe it: the whole system started as `npm start` starts
// it, with OTEL_EXPORTER_OTLP_ENDPOINT pointing at an OTLP/HTTP receiver in this test. One system serves
// both halves:
//
// Traces. One click, one trace; one purchase, one trace (OTLP JSON). The spans the OpenTelemetry SDK
// and the NATS propagation export must link, by one trace id and parent by parent:
// - a click: the gateway's request, the game's, the game's Redis commands, the state the game publishes
//   and realtime's broadcast of it;
// - a purchase: the gateway's checkout request, payments' handling of it, its Postgres queries and its
//   call to auth, the outbox's publish of the purchase, the game's credit, the state the game then
//   publishes and realtime's broadcast of it;
// and the services' log lines written in those spans carry the trace id. A client's own traceparent
// does not get past the gateway.
//
// Metrics. Every deployable's /metrics answers in Prometheus's text format, and the game's click counter
// there rises with the clicks players make through the gateway.
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrometheus, startSystem, type PrometheusHandle, type System } from '@omc/infra';
import { monitoredMetricNames } from '../src/monitoring.js';
import { ROOT } from '../src/repo.js';

interface ExportedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, string>;
}

interface OtlpAttribute {
  key: string;
  value: { stringValue?: string; intValue?: string | number };
}

const spans: ExportedSpan[] = [];
let receiver: Server;
let system: System;
let prometheus: PrometheusHandle | undefined;
const dir = join(ROOT, '.data', 'test', `ops-running-${process.pid}`);

/** OTLP/HTTP JSON (what @opentelemetry/exporter-trace-otlp-http sends): resourceSpans → scopeSpans → spans. */
function collect(body: Buffer, encoding: string | undefined): void {
  const text = (encoding === 'gzip' ? gunzipSync(body) : body).toString('utf8');
  const payload = JSON.parse(text) as {
    resourceSpans: {
      resource: { attributes: OtlpAttribute[] };
      scopeSpans: {
        spans: (Omit<ExportedSpan, 'service' | 'attributes'> & { attributes?: OtlpAttribute[] })[];
      }[];
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
          attributes: Object.fromEntries(
            (span.attributes ?? []).map((a) => [
              a.key,
              String(a.value.stringValue ?? a.value.intValue ?? ''),
            ]),
          ),
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
    env: {
      RATE_LIMIT_PER_IP: '0',
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    },
    log: () => undefined,
  });
}, 300_000);

afterAll(async () => {
  await prometheus?.stop();
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
const CLIENT = 3;
const PRODUCER = 4;
const CONSUMER = 5;

/** Whether `ancestor` is `span` itself or one of its parents, through the spans received so far. */
function descends(span: ExportedSpan, ancestor: ExportedSpan): boolean {
  const byId = new Map(spans.filter((s) => s.traceId === span.traceId).map((s) => [s.spanId, s]));
  for (let at: ExportedSpan | undefined = span; at; at = byId.get(at.parentSpanId))
    if (at.spanId === ancestor.spanId) return true;
  return false;
}

/** The first span of `traceId` that matches, once it (and its parents up to the root) have arrived. */
function inTrace(traceId: string, service: string, kind: number, match: (s: ExportedSpan) => boolean) {
  return () =>
    spans.find((s) => s.traceId === traceId && s.service === service && s.kind === kind && match(s));
}

/** The root span the gateway exported for a request to `path`. */
function gatewayRoot(method: string, path: string) {
  return () =>
    spans.find(
      (s) =>
        s.service === 'gateway' &&
        s.kind === SERVER &&
        s.parentSpanId === '' &&
        s.attributes['http.request.method'] === method &&
        (s.attributes['url.path'] ?? s.attributes['http.target'] ?? '').startsWith(path),
    );
}

/** Waits until the chain from `span` to `root` is whole (every parent exported), then checks it. */
async function linked(span: ExportedSpan, root: ExportedSpan, what: string) {
  await until(`${what} linked to the root`, () => (descends(span, root) ? true : undefined));
}

let token: string;

describe('one trace per click and per purchase', () => {
  beforeAll(async () => {
    const username = `tr${randomBytes(4).toString('hex')}`;
    const registered = await call('POST', '/api/user/register', undefined, {
      username,
      email: `${username}@example.com`,
      password: 'tracing-password-1',
    });
    expect(registered.status, JSON.stringify(registered.body)).toBeLessThan(300);
    token = registered.body.token as string;
    await until('the game to know the player', async () =>
      (await call('GET', '/api/game/profile', token)).status === 200 ? true : undefined,
    );
  });

  it('links the checkout, its queries, the call to auth, the outbox, the game credit and the broadcast', async () => {
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

    const checkout = await until(
      'the gateway span of the checkout',
      gatewayRoot('POST', '/api/payments/checkout'),
    );
    const traceId = checkout.traceId;
    expect(traceId).not.toBe(claimed);

    const payments = await until(
      'payments serving the checkout',
      inTrace(traceId, 'payments', SERVER, (s) => s.attributes['http.route'] === '/api/payments/checkout'),
    );
    const query = await until(
      'payments querying Postgres',
      inTrace(traceId, 'payments', CLIENT, (s) => s.attributes['db.system.name'] === 'postgresql'),
    );
    const auth = await until(
      'auth asked for the account',
      inTrace(traceId, 'auth', SERVER, (s) => (s.attributes['http.route'] ?? '').startsWith('/internal')),
    );
    const published = await until(
      'the outbox publishing the purchase',
      inTrace(traceId, 'payments', PRODUCER, (s) => s.name === 'publish payments.purchase.completed.v1'),
    );
    const credited = await until(
      'the game crediting the purchase',
      inTrace(traceId, 'game', CONSUMER, (s) => s.name === 'process payments.purchase.completed.v1'),
    );
    const state = await until(
      'the game publishing its new state',
      inTrace(traceId, 'game', PRODUCER, (s) => s.name === 'publish game.state.v1'),
    );
    const broadcast = await until(
      'realtime broadcasting it',
      inTrace(traceId, 'realtime', CONSUMER, (s) => s.name === 'broadcast game.state.v1'),
    );

    // Hop by hop, each span descends from the one before it.
    await linked(payments, checkout, 'payments');
    await linked(query, payments, 'the query');
    await linked(auth, payments, 'auth');
    await linked(published, payments, 'the publish');
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

  it("links the gateway's request, the game's, its Redis commands, the state it publishes and the broadcast", async () => {
    const click = await call('POST', '/api/game/click', token);
    expect(click.status, JSON.stringify(click.body)).toBe(200);

    const root = await until('the gateway span of the click', gatewayRoot('POST', '/api/game/click'));
    const traceId = root.traceId;
    const game = await until(
      'the game serving the click',
      inTrace(traceId, 'game', SERVER, (s) => s.attributes['http.route'] === '/api/game/click'),
    );
    const redis = await until(
      "the game's Redis command",
      inTrace(traceId, 'game', CLIENT, (s) => s.attributes['db.system.name'] === 'redis'),
    );
    const state = await until(
      'the game publishing its new state',
      inTrace(traceId, 'game', PRODUCER, (s) => s.name === 'publish game.state.v1'),
    );
    const broadcast = await until(
      'realtime broadcasting it',
      inTrace(traceId, 'realtime', CONSUMER, (s) => s.name === 'broadcast game.state.v1'),
    );

    await linked(game, root, 'the game');
    await linked(redis, game, 'the Redis command');
    expect(broadcast.parentSpanId).toBe(state.spanId);
    // Probes are not traced.
    expect(spans.some((s) => (s.attributes['url.path'] ?? '').endsWith('/healthz'))).toBe(false);
  });
});

async function scrape(url: string): Promise<{ contentType: string; text: string }> {
  const response = await fetch(`${url}/metrics`);
  expect(response.status, url).toBe(200);
  return { contentType: response.headers.get('content-type') ?? '', text: await response.text() };
}

/** A sample's value in Prometheus text: the first line of `name{...}` whose labels include `labels`. */
function sample(text: string, name: string, labels: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

describe('/metrics on the running system', () => {
  it.each(['auth', 'game', 'payments', 'realtime', 'gateway'])(
    '%s answers in Prometheus text format',
    async (name) => {
      // Where Prometheus scrapes: a service's own port, the gateway's internal listener.
      const { contentType, text } = await scrape(
        system.internalUrls[name as keyof typeof system.internalUrls]!,
      );
      expect(contentType).toMatch(/^text\/plain; version=0\.0\.4/);
      expect(text).toMatch(/^# HELP process_cpu_user_seconds_total /m);
      expect(text).toMatch(/^# TYPE http_request_duration_seconds histogram$/m);
      expect(text).toContain(`service="${name}"`);
      // Every sample line is `name{labels} value`.
      for (const line of text.split('\n').filter((l) => l && !l.startsWith('#')))
        expect(line).toMatch(/^[a-zA-Z_:][\w:]*(\{.*\})? [-+\w.]+$/);
    },
  );

  it("keeps the gateway's metrics, readiness and liveness off its public port", async () => {
    expect(system.internalUrls.gateway).not.toBe(system.gatewayUrl);
    for (const path of ['/metrics', '/readyz', '/healthz']) {
      const response = await fetch(`${system.gatewayUrl}${path}`);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { code?: string }).code, path).toBe('NOT_FOUND');
    }
  });

  it('exports every metric the alerts and the dashboard read', async () => {
    const exported = new Set(['up']); // made by Prometheus for every target
    for (const name of ['auth', 'game', 'payments', 'realtime', 'gateway']) {
      const { text } = await scrape(system.internalUrls[name as keyof typeof system.internalUrls]!);
      for (const [, metric, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
        exported.add(metric!);
        if (type === 'histogram')
          for (const suffix of ['_bucket', '_sum', '_count']) exported.add(metric + suffix);
      }
    }
    const missing = monitoredMetricNames().filter((name) => !exported.has(name));
    expect(missing, 'read by k8s/monitoring but exported by no service').toEqual([]);
  });

  it('counts the clicks players make through the gateway', async () => {
    const suffix = `${process.pid}${Date.now() % 100000}`;
    const register = await fetch(`${system.gatewayUrl}/api/user/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        username: `ops${suffix}`,
        email: `ops${suffix}@example.com`,
        password: 'ops-metrics-password',
      }),
    });
    expect(register.status, await register.clone().text()).toBeLessThan(300);
    const { token } = (await register.json()) as { token: string };

    const click = () =>
      fetch(`${system.gatewayUrl}/api/game/click`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}` },
      });
    // The game learns of a new player from auth's event: until then a click is a 409 and counts nothing.
    const known = Date.now() + 10_000;
    let first = await click();
    while (first.status === 409 && Date.now() < known) {
      await new Promise((r) => setTimeout(r, 100));
      first = await click();
    }
    expect(first.status, await first.clone().text()).toBe(200);

    const before = sample((await scrape(system.urls.game!)).text, 'game_clicks_total', 'outcome="accepted"');
    for (let i = 0; i < 3; i++) {
      const answer = await click();
      expect(answer.status, await answer.clone().text()).toBe(200);
    }
    const after = sample((await scrape(system.urls.game!)).text, 'game_clicks_total', 'outcome="accepted"');
    expect(after - before).toBe(3);
  });

  it("Debian's Prometheus (npm start -- --prometheus) scrapes every service and loads every alert", async () => {
    prometheus = await startPrometheus({
      root: ROOT,
      dir: join(dir, 'prometheus'),
      port: 'free',
      scrapeIntervalSeconds: 1,
      targets: system.processes
        .filter((p) => p.name !== 'emulators')
        .map((p) => ({ service: p.deployable.name, url: p.internalUrl })),
    });
    const query = async (path: string) =>
      ((await (await fetch(prometheus!.url + path)).json()) as { data: any }).data;
    const deadline = Date.now() + 30_000;
    let health: string[] = [];
    while (Date.now() < deadline) {
      health = (await query('/api/v1/targets')).activeTargets.map(
        (t: any) => `${t.labels.service} ${t.health}`,
      );
      if (health.length > 0 && health.every((h) => h.endsWith(' up'))) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(health.sort()).toEqual(['auth up', 'game up', 'gateway up', 'payments up', 'realtime up']);
    const rules = (await query('/api/v1/rules')).groups.flatMap((g: any) => g.rules);
    expect(rules.length).toBeGreaterThanOrEqual(13);
    for (const rule of rules) expect(rule.health, rule.name).not.toBe('err');
    const ready = await query('/api/v1/query?query=sum(service_ready)');
    expect(Number(ready.result[0]?.value[1])).toBe(5);
  });
});
