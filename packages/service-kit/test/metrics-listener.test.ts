// METRICS_PORT: /metrics is served on a listener of its own and nothing else is, so a NetworkPolicy can
// let Prometheus reach that port alone; the main port then answers /metrics 404. Unset, /metrics stays
// on the main port.
import { once } from 'node:events';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createLogger, createMetrics, createServiceApp, listenMetrics, type App } from '../src/index.js';

const log = createLogger('metrics-test', 'silent');

/** A loopback port nothing listens on at this moment. */
async function freePort(): Promise<number> {
  const probe = createNetServer().listen(0, '127.0.0.1');
  await once(probe, 'listening');
  const { port } = probe.address() as AddressInfo;
  probe.close();
  await once(probe, 'close');
  return port;
}

describe('the metrics listener', () => {
  let app: App | undefined;
  afterEach(async () => {
    await app?.close();
    app = undefined;
  });

  async function serviceApp(metricsPort: number): Promise<App> {
    const metrics = createMetrics('metrics-test', false);
    metrics.counter('metrics_test_marks_total', 'A mark to find in the scrape').inc();
    const built = await createServiceApp(
      { log, metrics, config: { METRICS_PORT: metricsPort } },
      {
        name: 'metrics-test',
        logger: false,
      },
    );
    built.get('/api/thing', async () => ({ ok: true }));
    return built;
  }

  it('serves /metrics from the registry, 404 on anything else, and the main port no /metrics', async () => {
    const port = await freePort();
    app = await serviceApp(port);
    await app.listen({ host: '127.0.0.1', port: 0 });
    await listenMetrics(app, port, '127.0.0.1');
    const base = `http://127.0.0.1:${port}`;

    const scrape = await fetch(`${base}/metrics`);
    expect(scrape.status).toBe(200);
    expect(await scrape.text()).toContain('metrics_test_marks_total');
    expect((await fetch(`${base}/api/thing`)).status).toBe(404);
    expect((await fetch(`${base}/healthz`)).status).toBe(404);

    expect((await app.inject({ url: '/metrics' })).statusCode).toBe(404);
    expect((await app.inject({ url: '/api/thing' })).statusCode).toBe(200);

    await app.close();
    app = undefined;
    await expect(fetch(`${base}/metrics`)).rejects.toThrow();
  });

  it('unset (0): /metrics on the main port, as before', async () => {
    app = await serviceApp(0);
    const scrape = await app.inject({ url: '/metrics' });
    expect(scrape.statusCode).toBe(200);
    expect(scrape.body).toContain('metrics_test_marks_total');
  });
});
