// What the operator's monitoring is made of, and the files in k8s/monitoring/ generated from it:
// - alerts.rules.yml (written by hand) becomes prometheus-rule.yaml, the same groups as a PrometheusRule;
// - the dashboard below becomes grafana-dashboard.json (importable as it is) and dashboard-configmap.yaml,
//   the ConfigMap Grafana's dashboard sidecar loads (label grafana_dashboard: "1").
// `pnpm --filter @omc/ops-tests run monitoring` writes them; tests/ops checks they are current.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { K8S } from './repo.js';
import { loadYaml } from './yaml.js';

export const MONITORING = join(K8S, 'monitoring');
export const RULES_FILE = join(MONITORING, 'alerts.rules.yml');
export const PROMETHEUS_RULE_FILE = join(MONITORING, 'prometheus-rule.yaml');
export const DASHBOARD_FILE = join(MONITORING, 'grafana-dashboard.json');
export const DASHBOARD_CONFIGMAP_FILE = join(MONITORING, 'dashboard-configmap.yaml');

const LABELS = {
  'app.kubernetes.io/name': 'one-million-clicks',
  'app.kubernetes.io/part-of': 'one-million-clicks',
  'app.kubernetes.io/component': 'monitoring',
};

export interface RuleGroups {
  groups: {
    name: string;
    rules: { alert?: string; record?: string; expr: string; [key: string]: unknown }[];
  }[];
}

export function ruleGroups(): RuleGroups {
  return loadYaml<RuleGroups>(RULES_FILE);
}

export function prometheusRule(): object {
  return {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name: 'one-million-clicks',
      // kube-prometheus-stack's Prometheus selects rules by its release label; set yours with a patch.
      labels: { ...LABELS, release: 'kube-prometheus-stack' },
    },
    spec: ruleGroups(),
  };
}

// --- the dashboard ------------------------------------------------------------------------------------

interface Panel {
  title: string;
  type: 'timeseries' | 'stat';
  unit?: string;
  /** PromQL, and the legend of each. */
  targets: [expr: string, legend: string][];
  description?: string;
}

const CLICK = 'service="game",route="/api/game/click"';

/** Rows of panels, each row 24 units wide. */
export const DASHBOARD_ROWS: { title: string; panels: Panel[] }[] = [
  {
    title: 'The round',
    panels: [
      { title: 'Round', type: 'stat', targets: [['max(game_round)', 'round']] },
      {
        title: 'Round progress',
        type: 'stat',
        unit: 'percentunit',
        targets: [['max(game_round_clicks) / max(game_round_target)', 'progress']],
      },
      {
        title: 'Clicks in the round',
        type: 'timeseries',
        targets: [
          ['max(game_round_clicks)', 'clicks'],
          ['max(game_round_target)', 'target'],
        ],
      },
      { title: 'Pot', type: 'stat', unit: 'currencyEUR', targets: [['max(game_pot_cents) / 100', 'pot']] },
    ],
  },
  {
    title: 'Clicks',
    panels: [
      {
        title: 'Clicks per second, by outcome',
        type: 'timeseries',
        unit: 'ops',
        targets: [['sum by (outcome) (rate(game_clicks_total[1m]))', '{{outcome}}']],
      },
      {
        title: 'Click latency (game)',
        type: 'timeseries',
        unit: 's',
        targets: [
          [
            `histogram_quantile(0.5, sum by (le) (rate(http_request_duration_seconds_bucket{${CLICK}}[5m])))`,
            'p50',
          ],
          [
            `histogram_quantile(0.99, sum by (le) (rate(http_request_duration_seconds_bucket{${CLICK}}[5m])))`,
            'p99',
          ],
        ],
      },
      {
        title: 'Server errors by service',
        type: 'timeseries',
        unit: 'percentunit',
        // `or ... * 0`: a service without a single 5xx draws at 0 rather than vanishing.
        targets: [
          [
            '(sum by (service) (rate(http_request_duration_seconds_count{status=~"5.."}[5m])) or sum by (service) (rate(http_request_duration_seconds_count[5m])) * 0) / sum by (service) (rate(http_request_duration_seconds_count[5m]))',
            '{{service}}',
          ],
        ],
      },
    ],
  },
  {
    title: 'Live updates',
    panels: [
      {
        title: 'Sockets and people connected',
        type: 'timeseries',
        targets: [
          ['sum(realtime_sockets_connected)', 'sockets'],
          ['max(realtime_users_connected)', 'people'],
        ],
      },
      {
        title: 'Disconnects per second, by reason',
        type: 'timeseries',
        unit: 'ops',
        targets: [['sum by (reason) (rate(realtime_disconnects_total[5m]))', '{{reason}}']],
      },
      {
        title: 'Broadcast lag p99',
        type: 'timeseries',
        unit: 's',
        targets: [
          ['histogram_quantile(0.99, sum by (le) (rate(realtime_broadcast_lag_seconds_bucket[5m])))', 'p99'],
        ],
      },
    ],
  },
  {
    title: 'Money',
    panels: [
      {
        title: 'Purchases per minute, by outcome',
        type: 'timeseries',
        targets: [['sum by (outcome) (rate(payments_checkouts_total[5m])) * 60', '{{outcome}}']],
      },
      {
        title: 'Payouts per hour, by outcome',
        type: 'timeseries',
        targets: [
          ['sum by (outcome) (rate(payments_payouts_total[15m])) * 3600', '{{outcome}}'],
          ['max(payments_payouts_unfinished)', 'unfinished now'],
        ],
      },
      {
        title: 'Ledger check problems',
        type: 'stat',
        targets: [['max(payments_ledger_check_problems)', 'problems']],
        description: '0: sound; -1: the check could not run',
      },
    ],
  },
  {
    title: 'Events',
    panels: [
      {
        title: 'Outbox backlog',
        type: 'timeseries',
        targets: [
          ['max(auth_outbox_backlog)', 'auth'],
          ['max(game_outbox_backlog)', 'game'],
          ['max(payments_outbox_backlog)', 'payments'],
        ],
      },
      {
        title: 'Consumer lag (messages not yet delivered)',
        type: 'timeseries',
        targets: [
          ['max by (stream, consumer) (nats_consumer_pending_messages)', '{{consumer}} on {{stream}}'],
        ],
      },
      {
        title: 'Ready instances by service',
        type: 'timeseries',
        targets: [['sum by (service) (service_ready)', '{{service}}']],
      },
    ],
  },
];

/** Every PromQL expression the dashboard draws. */
export function dashboardQueries(): string[] {
  return DASHBOARD_ROWS.flatMap((row) => row.panels.flatMap((p) => p.targets.map(([expr]) => expr)));
}

export function dashboard(): object {
  const panels: object[] = [];
  let id = 1;
  let y = 0;
  for (const row of DASHBOARD_ROWS) {
    panels.push({
      id: id++,
      type: 'row',
      title: row.title,
      collapsed: false,
      gridPos: { h: 1, w: 24, x: 0, y },
      panels: [],
    });
    y += 1;
    const width = Math.floor(24 / row.panels.length);
    row.panels.forEach((panel, i) => {
      panels.push({
        id: id++,
        type: panel.type,
        title: panel.title,
        ...(panel.description ? { description: panel.description } : {}),
        datasource: { type: 'prometheus', uid: '${datasource}' },
        gridPos: { h: 8, w: width, x: i * width, y },
        fieldConfig: { defaults: { ...(panel.unit ? { unit: panel.unit } : {}) }, overrides: [] },
        options:
          panel.type === 'stat'
            ? {
                reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
                colorMode: 'value',
                graphMode: 'area',
              }
            : { legend: { displayMode: 'list', placement: 'bottom' }, tooltip: { mode: 'multi' } },
        targets: panel.targets.map(([expr, legend], j) => ({
          refId: String.fromCharCode(65 + j),
          datasource: { type: 'prometheus', uid: '${datasource}' },
          expr,
          legendFormat: legend,
        })),
      });
    });
    y += 8;
  }
  return {
    uid: 'one-million-clicks',
    title: 'One Million Clicks',
    description: 'The round, clicks, live updates, money and events (docs/operations.md, "The dashboard").',
    tags: ['one-million-clicks'],
    editable: false,
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-3h', to: 'now' },
    timezone: 'utc',
    templating: {
      list: [
        {
          name: 'datasource',
          label: 'Prometheus',
          type: 'datasource',
          query: 'prometheus',
          current: {},
          hide: 0,
        },
      ],
    },
    panels,
  };
}

export function dashboardJson(): string {
  return `${JSON.stringify(dashboard(), null, 2)}\n`;
}

export function dashboardConfigMap(): object {
  return {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      name: 'one-million-clicks-dashboard',
      labels: { ...LABELS, grafana_dashboard: '1' },
    },
    data: { 'one-million-clicks.json': dashboardJson() },
  };
}

const PROMQL_WORDS = new Set([
  'and',
  'or',
  'unless',
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'offset',
  'bool',
  'inf',
  'nan',
]);

/**
 * The metric names a PromQL expression reads: identifiers that are not functions, keywords, label names
 * (inside braces or grouping clauses), strings or durations. promtool checks the syntax; this only names.
 */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""')
    .replace(/\{[^}]*\}/g, '')
    .replace(/\[[^\]]*\]/g, '')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '')
    .replace(/\boffset\s+\w+/g, '');
  const names: string[] = [];
  for (const match of bare.matchAll(/[a-zA-Z_:][\w:]*/g)) {
    const after = bare.slice(match.index + match[0].length).trimStart();
    if (after.startsWith('(') || PROMQL_WORDS.has(match[0].toLowerCase())) continue;
    if (!names.includes(match[0])) names.push(match[0]);
  }
  return names;
}

/** Every metric name the alerts and the dashboard read. */
export function monitoredMetricNames(): string[] {
  const exprs = [...ruleGroups().groups.flatMap((g) => g.rules.map((r) => r.expr)), ...dashboardQueries()];
  return [...new Set(exprs.flatMap(metricNames))].sort();
}

const HEADER =
  '# Generated by `pnpm --filter @omc/ops-tests run monitoring` from tests/ops/src/monitoring.ts: do not edit.\n';

/** The generated files and what they must hold. */
export function generatedFiles(): { file: string; text: string }[] {
  return [
    {
      file: PROMETHEUS_RULE_FILE,
      text: `# The groups of alerts.rules.yml (edit that file). ${HEADER.slice(2)}${stringify(prometheusRule(), { lineWidth: 0 })}`,
    },
    { file: DASHBOARD_FILE, text: dashboardJson() },
    { file: DASHBOARD_CONFIGMAP_FILE, text: HEADER + stringify(dashboardConfigMap(), { lineWidth: 0 }) },
  ];
}

export function readIfExists(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

if (process.argv[1] && import.meta.url === `file://${process.argv[1]}`) {
  for (const { file, text } of generatedFiles()) writeFileSync(file, text);
  console.log(
    `wrote ${generatedFiles()
      .map((g) => g.file)
      .join(', ')}`,
  );
}
