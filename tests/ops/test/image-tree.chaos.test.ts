// What each image holds, without a Docker engine: the shared Dockerfile's own deploy step (pnpm deploy of the
// package with production dependencies only) is run into a folder owned by root, and the image's command
// is started there as user 1000 with nothing writable but its temporary folder. A package whose
// production tree misses a module, or that writes outside /tmp, fails here.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '@omc/infra';
import { execForm, last, parseDockerfile } from '../src/dockerfile.js';
import { DEPLOYABLES, ROOT, packageOf } from '../src/repo.js';

const work = join(ROOT, '.data', 'ops-image-trees');
mkdirSync(work, { recursive: true });
const isRoot = process.getuid?.() === 0;
const canDropPrivileges = isRoot && spawnSync('sh', ['-c', 'command -v setpriv']).status === 0;
const folders: string[] = [];

afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

const DOCKERFILE = join(ROOT, 'docker', 'Dockerfile');

/** The shared Dockerfile's deploy command for the package in `dir`, run from the workspace into `out`. */
function deploy(dir: string, out: string): void {
  const runs = parseDockerfile(DOCKERFILE).stages.flatMap((s) =>
    s.instructions.filter((i) => i.keyword === 'RUN'),
  );
  const command = runs
    .map((r) => r.args)
    .find((a) => a.includes(' deploy '))!
    .split('&&')
    .find((part) => part.includes(' deploy '))!;
  const pnpmArgs = command
    .trim()
    .replace('${PACKAGE_DIR}', dir)
    .replace(/\/out\b/, out)
    .split(/\s+/)
    .slice(1);
  const result = spawnSync('pnpm', pnpmArgs, {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...process.env, CI: 'true' },
  });
  if (result.status !== 0)
    throw new Error(`pnpm ${pnpmArgs.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  for (const removed of ['test', 'vitest.config.ts'])
    rmSync(join(out, removed), { recursive: true, force: true });
}

/** Starts the image's command in `cwd` and reports how it ended: a config refusal, or a live /healthz. */
async function start(
  cwd: string,
  command: string[],
  tmp: string,
  internal = false,
): Promise<{ outcome: 'refused-config' | 'healthy' | 'failed'; output: string }> {
  const port = await freePort();
  // The gateway answers /healthz on its internal listener only.
  const internalPort = await freePort();
  const env = {
    PATH: process.env.PATH,
    HOME: tmp,
    TMPDIR: tmp,
    NODE_ENV: 'production',
    HOST: '127.0.0.1',
    PORT: String(port),
    GATEWAY_PORT: String(port),
    GATEWAY_INTERNAL_PORT: String(internalPort),
    // Tracing on (no collector answers there): the tree must also hold the OpenTelemetry SDK, its
    // instrumentations and the loader hook that main.ts starts before the service's modules load.
    OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
  };
  const [cmd, ...args] = canDropPrivileges
    ? ['setpriv', '--reuid=1000', '--regid=1000', '--clear-groups', ...command]
    : command;
  const child = spawn(cmd!, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const deadline = Date.now() + 60_000;
  try {
    while (Date.now() < deadline) {
      const code = await Promise.race([
        exited,
        new Promise<'running'>((r) => setTimeout(() => r('running'), 200)),
      ]);
      if (code !== 'running')
        return {
          outcome: code === 78 && /Invalid configuration/.test(output) ? 'refused-config' : 'failed',
          output,
        };
      try {
        const response = await fetch(`http://127.0.0.1:${internal ? internalPort : port}/healthz`, {
          signal: AbortSignal.timeout(500),
        });
        if (response.ok) return { outcome: 'healthy', output };
      } catch {
        // not listening yet
      }
    }
    return { outcome: 'failed', output: `${output}\n(no answer within 60 s)` };
  } finally {
    if (child.exitCode === null && child.pid) {
      process.kill(child.pid, 'SIGTERM');
      await exited;
    }
  }
}

describe.each(DEPLOYABLES.map((d) => [d.name, d] as const))('%s image tree', (_name, d) => {
  it('holds everything its command needs, and starts as user 1000 with only /tmp writable', async () => {
    expect(packageOf(d).exists, `${d.dir}/package.json`).toBe(true);
    const folder = mkdtempSync(join(work, `${d.name}-`));
    folders.push(folder);
    const app = join(folder, 'app');
    const tmp = join(folder, 'tmp');
    deploy(d.dir, app);
    mkdirSync(tmp);
    if (canDropPrivileges) spawnSync('chown', ['1000:1000', tmp]);
    else chmodSync(tmp, 0o777);
    chmodSync(folder, 0o755);
    expect(existsSync(join(app, 'src', 'main.ts'))).toBe(true);
    // Production dependencies only.
    for (const devOnly of ['vitest', 'typescript', '@omc/testkit'])
      expect(existsSync(join(app, 'node_modules', devOnly)), devOnly).toBe(false);

    const runtime = parseDockerfile(DOCKERFILE).stages.find((s) => s.name === 'service')!;
    const command = execForm(last(runtime, 'CMD')!.args)!;
    // No database, Redis or NATS here: a service must get as far as refusing its configuration (so every
    // module resolved and compiled), or, if it needs none, answer /healthz.
    const result = await start(app, command, tmp, d.internalPort !== undefined);
    expect(result.outcome, result.output.slice(-2000)).not.toBe('failed');
    if (!canDropPrivileges)
      console.log(`[ops] ${d.name}: not root, so the tree was started as the current user`);
  });
});
