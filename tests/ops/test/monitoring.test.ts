// The operator's alerts and dashboard: promtool accepts the rules and passes their unit tests (and
// refuses a broken copy), the PrometheusRule and the dashboard's ConfigMap are exactly what their sources
// generate, every dashboard query is PromQL that Prometheus parses, and every alert is tested and
// explained in docs/operations.md. running-system.test.ts checks the metric names against a running system.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { getFileInfo } from 'prettier';
import { parse } from 'yaml';
import { ensurePromtool } from '@omc/infra';
import {
  DASHBOARD_CONFIGMAP_FILE,
  dashboardQueries,
  generatedFiles,
  metricNames,
  prometheusRule,
  PROMETHEUS_RULE_FILE,
  readIfExists,
  ruleGroups,
  RULES_FILE,
} from '../src/monitoring.js';
import { ROOT } from '../src/repo.js';

const RULE_TESTS = join(ROOT, 'tests', 'ops', 'monitoring', 'alerts.test.yml');

function promtool(...args: string[]): { status: number | null; output: string } {
  const result = spawnSync('promtool', args, { encoding: 'utf8' });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

const alerts = () => ruleGroups().groups.flatMap((g) => g.rules);

beforeAll(() => {
  if (process.getuid?.() === 0) ensurePromtool();
  if (spawnSync('promtool', ['--version']).status !== 0)
    throw new Error("promtool is missing: apt-get install prometheus (Debian's package has it)");
});

describe('alerting rules', () => {
  it('promtool check rules accepts them', () => {
    const { status, output } = promtool('check', 'rules', RULES_FILE);
    expect(status, output).toBe(0);
    expect(output).toMatch(new RegExp(`SUCCESS: ${alerts().length} rules found`));
  });

  it('promtool check rules refuses a broken copy', () => {
    const dir = mkdtempSync(join(tmpdir(), 'omc-rules-'));
    try {
      const broken = join(dir, 'broken.yml');
      writeFileSync(
        broken,
        readFileSync(RULES_FILE, 'utf8').replace('sum by (le) (rate(', 'sum by (le) (rate(('),
      );
      expect(promtool('check', 'rules', broken).status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('every alert passes its unit tests (promtool test rules)', () => {
    const { status, output } = promtool('test', 'rules', RULE_TESTS);
    expect(status, output).toBe(0);
    expect(output).toContain('SUCCESS');
  });

  it('every alert is unit-tested both firing and quiet', () => {
    const tests = parse(readFileSync(RULE_TESTS, 'utf8')) as {
      tests: { alert_rule_test?: { alertname: string; exp_alerts?: unknown[] }[] }[];
    };
    const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const rule of alerts()) {
      const mine = cases.filter((c) => c.alertname === rule.alert);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length > 0),
        `${rule.alert} fires in a test`,
      ).toBe(true);
      expect(
        mine.some((c) => (c.exp_alerts ?? []).length === 0),
        `${rule.alert} stays quiet in a test`,
      ).toBe(true);
    }
  });

  it('every alert has a severity and a runbook section in docs/operations.md', () => {
    const docs = readFileSync(join(ROOT, 'docs', 'operations.md'), 'utf8');
    for (const rule of alerts()) {
      expect(['page', 'ticket'], rule.alert).toContain((rule.labels as Record<string, string>).severity);
      const runbook = (rule.annotations as Record<string, string>).runbook;
      expect(runbook, rule.alert).toBe(`docs/operations.md#${rule.alert!.toLowerCase()}`);
      expect(docs, `docs/operations.md explains ${rule.alert}`).toMatch(
        new RegExp(`^#+ ${rule.alert}$`, 'm'),
      );
    }
  });
});

describe('k8s/monitoring', () => {
  it('the generated files are current (pnpm --filter @omc/ops-tests run monitoring)', () => {
    for (const { file, text } of generatedFiles()) expect(readIfExists(file), file).toBe(text);
  });

  it('the generated files are left out of the formatting check (.prettierignore)', async () => {
    for (const { file } of generatedFiles()) {
      const info = await getFileInfo(file, { ignorePath: join(ROOT, '.prettierignore') });
      expect(info, relative(ROOT, file)).toMatchObject({ ignored: true });
    }
  });

  it('the PrometheusRule holds exactly the rules promtool checks', () => {
    const written = parse(readFileSync(PROMETHEUS_RULE_FILE, 'utf8')) as { spec: unknown };
    expect(written.spec).toEqual(parse(readFileSync(RULES_FILE, 'utf8')));
    expect(written).toEqual(prometheusRule());
  });

  it("the dashboard's ConfigMap is labelled for Grafana's sidecar and holds the dashboard", () => {
    const map = parse(readFileSync(DASHBOARD_CONFIGMAP_FILE, 'utf8')) as {
      metadata: { labels: Record<string, string> };
      data: Record<string, string>;
    };
    expect(map.metadata.labels.grafana_dashboard).toBe('1');
    const dashboard = JSON.parse(map.data['one-million-clicks.json']!) as {
      panels: { targets?: { expr: string }[] }[];
    };
    const exprs = dashboard.panels.flatMap((p) => (p.targets ?? []).map((t) => t.expr));
    expect(exprs).toEqual(dashboardQueries());
  });

  it('every dashboard query is PromQL that Prometheus parses', () => {
    const dir = mkdtempSync(join(tmpdir(), 'omc-dashboard-'));
    try {
      const file = join(dir, 'queries.yml');
      const rules = dashboardQueries().map((expr, i) => ({ record: `omc_dashboard:query_${i}`, expr }));
      writeFileSync(file, JSON.stringify({ groups: [{ name: 'dashboard', rules }] }));
      const { status, output } = promtool('check', 'rules', file);
      expect(status, output).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads metric names out of PromQL', () => {
    expect(
      metricNames(
        'sum by (le, service) (rate(http_request_duration_seconds_bucket{route="/api/x",status=~"5.."}[5m])) / max(game_round_target offset 5m) and on (service) up == 0',
      ),
    ).toEqual(['http_request_duration_seconds_bucket', 'game_round_target', 'up']);
  });
});
