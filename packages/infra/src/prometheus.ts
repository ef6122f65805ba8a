// Debian's Prometheus beside a running system (`npm start -- --prometheus`, and the tests that need real
// scraped data): it scrapes every service and the gateway every few seconds, with the alerting rules of
// k8s/monitoring/alerts.rules.yml loaded, so a developer sees what an operator's Prometheus sees.
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDebianCommands, freePort, InfraError, killByPid } from './native.js';

export interface PrometheusTarget {
  /** The deployable's name: the `service` label of its series. */
  service: string;
  /** Its base URL (http://127.0.0.1:3002). */
  url: string;
}

export interface PrometheusOptions {
  root: string;
  /** Folder for its configuration, data and log. */
  dir: string;
  targets: PrometheusTarget[];
  /** 9090 (npm start) or a free one. */
  port: number | 'free';
  scrapeIntervalSeconds?: number;
  log?: (line: string) => void;
}

export interface PrometheusHandle {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** The prometheus.yml for these targets, the project's rules loaded. */
export function prometheusConfig(
  options: Pick<PrometheusOptions, 'root' | 'targets' | 'scrapeIntervalSeconds'>,
): string {
  const interval = `${options.scrapeIntervalSeconds ?? 5}s`;
  const config = {
    global: { scrape_interval: interval, evaluation_interval: interval },
    rule_files: [join(options.root, 'k8s', 'monitoring', 'alerts.rules.yml')],
    scrape_configs: [
      {
        job_name: 'one-million-clicks',
        // The services label their samples with `service` themselves.
        honor_labels: true,
        static_configs: options.targets.map((t) => ({
          targets: [new URL(t.url).host],
          labels: { service: t.service },
        })),
      },
    ],
  };
  // JSON is YAML: no YAML library needed here.
  return JSON.stringify(config, null, 2);
}

export async function startPrometheus(options: PrometheusOptions): Promise<PrometheusHandle> {
  ensureDebianCommands(
    [{ command: 'prometheus', pkg: 'prometheus' }],
    "--prometheus needs Debian's prometheus package.",
    options.log,
  );
  mkdirSync(join(options.dir, 'data'), { recursive: true });
  const configFile = join(options.dir, 'prometheus.yml');
  writeFileSync(configFile, prometheusConfig(options));
  const port = options.port === 'free' ? await freePort() : options.port;
  const logFile = createWriteStream(join(options.dir, 'prometheus.log'), { flags: 'a' });
  const child = spawn(
    'prometheus',
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${join(options.dir, 'data')}`,
      '--storage.tsdb.retention.time=2d',
      `--web.listen-address=127.0.0.1:${port}`,
      '--web.enable-lifecycle',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  child.stdout.pipe(logFile);
  child.stderr.pipe(logFile);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new InfraError(
        `prometheus exited (${child.exitCode}); see ${join(options.dir, 'prometheus.log')}`,
      );
    const ready = await fetch(`${url}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) {
      await killByPid(child.pid!, 'SIGKILL');
      throw new InfraError(
        `prometheus did not become ready within 30 s; see ${join(options.dir, 'prometheus.log')}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    pid: child.pid!,
    stop: () => killByPid(child.pid!, 'SIGTERM', 10_000),
  };
}
