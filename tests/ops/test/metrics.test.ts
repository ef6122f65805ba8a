// What operators scrape: every deployable's /metrics answers in Prometheus's text format on the running
// system, and the game's click counter there rises with the clicks players make through the gateway.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrometheus, startSystem, type PrometheusHandle, type System } from '@omc/infra';
import { monitoredMetricNames } from '../src/monitoring.js';
import { ROOT } from '../src/repo.js';

let system: System;
let prometheus: PrometheusHandle | undefined;
const dir = join(ROOT, '.data', 'test', `ops-metrics-${process.pid}`);

beforeAll(async () => {
  system = await startSystem({
    root: ROOT,
    dir,
    env: { RATE_LIMIT_PER_IP: '0' },
    log: () => undefined,
  });
}, 300_000);

afterAll(async () => {
  await prometheus?.stop();
  await system?.stop();
  rmSync(dir, { recursive: true, force: true });
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
