// `npm test`: every test of every package but the long fault suites, packages side by side (each starts
// its own servers unless DATABASE_URL, REDIS_URL and NATS_URL are given), with one summary at the end.
// `npm run test:chaos` (`--chaos`): the long fault suites alone, the `*.chaos.test.ts` files, one
// package at a time (each kills, pauses and restarts parts of a whole system and times its recovery).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import {
  ensureChromium,
  ensureDockerCompose,
  ensureInfraInstalled,
  ensurePromtool,
  ensureTmux,
} from '@omc/infra';
import { root, workspacePackages } from './checks/workspace-files.js';

const resultsDir = join(root, '.data', 'test-results');
mkdirSync(resultsDir, { recursive: true });

interface Pkg {
  name: string;
  dir: string;
}

const args = process.argv.slice(2);
const chaos = args.includes('--chaos');
const only = args.filter((a) => a !== '--chaos');

/** Whether a package has test files in this run: chaos files with --chaos, other test files without. */
function hasSuiteFiles(dir: string): boolean {
  const testDir = join(root, dir, 'test');
  const files = existsSync(testDir)
    ? (readdirSync(testDir, { recursive: true }) as string[]).filter((f) => /\.test\.tsx?$/.test(f))
    : [];
  const chaosFiles = files.filter((f) => f.endsWith('.chaos.test.ts'));
  // A package whose tests sit beside its code (web) has none under test/: all of them are `npm test`'s.
  return chaos ? chaosFiles.length > 0 : files.length === 0 || chaosFiles.length < files.length;
}

/** The packages with tests of their own in this run. */
const testedPackages = (): Pkg[] =>
  workspacePackages()
    .filter((p) => existsSync(join(root, p.dir, 'vitest.config.ts')) && hasSuiteFiles(p.dir))
    .map(({ name, dir }) => ({ name, dir }));

interface Outcome {
  pkg: Pkg;
  code: number;
  passed: number;
  failed: number;
  skipped: number;
  seconds: number;
}

/**
 * A package's own binary, run as `pnpm exec` would (its and the workspace's node_modules/.bin first on
 * PATH) without pnpm's own start-up, about a CPU-second a call.
 */
function localBin(dir: string, name: string): { command: string; path: string } {
  const bins = [join(root, dir, 'node_modules', '.bin'), join(root, 'node_modules', '.bin')];
  const command = bins.map((b) => join(b, name)).find((f) => existsSync(f)) ?? name;
  return { command, path: [...bins, process.env.PATH ?? ''].join(delimiter) };
}

const reportFile = (pkg: Pkg) => join(resultsDir, `${pkg.name.replace(/[@/]/g, '_')}.json`);

/** Each failed test of a package's report: its file and name, and the first lines of its error. */
function failedTests(pkg: Pkg): string[] {
  if (!existsSync(reportFile(pkg))) return [];
  try {
    const report = JSON.parse(readFileSync(reportFile(pkg), 'utf8')) as {
      testResults: {
        name: string;
        message?: string;
        assertionResults: { status: string; fullName: string; failureMessages: string[] }[];
      }[];
    };
    return report.testResults.flatMap((file) => {
      const where = `${pkg.name} ${file.name.slice(root.length + 1)}`;
      const failed = file.assertionResults.filter((a) => a.status === 'failed');
      if (failed.length === 0 && file.message) return [`${where}\n    ${firstLines(file.message)}`];
      return failed.map((a) => `${where} > ${a.fullName}\n    ${firstLines(a.failureMessages[0] ?? '')}`);
    });
  } catch {
    return [];
  }
}

/** The message's first lines and the first stack frame in the project's own code. */
function firstLines(text: string): string {
  const lines = text.split('\n');
  const frame = (line: string) => /^\s+at /.test(line);
  const message = lines.filter((l) => !frame(l)).slice(0, 3);
  const own = lines.find((l) => frame(l) && !l.includes('node_modules'));
  return [...message, ...(own ? [own.trim()] : [])].join('\n    ').slice(0, 800);
}

function runPackage(pkg: Pkg): Promise<Outcome> {
  const started = Date.now();
  const jsonFile = reportFile(pkg);
  // A report left by an earlier run must not stand in for one this run failed to write.
  rmSync(jsonFile, { force: true });
  const vitest = localBin(pkg.dir, 'vitest');
  return new Promise((resolve) => {
    const child = spawn(
      vitest.command,
      ['run', '--reporter=default', '--reporter=json', `--outputFile.json=${jsonFile}`],
      {
        cwd: join(root, pkg.dir),
        env: {
          ...process.env,
          PATH: vitest.path,
          NO_COLOR: '1',
          CI: process.env.CI ?? 'true',
          ...(chaos ? { OMC_SUITE: 'chaos' } : {}),
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('exit', (code) => {
      let passed = 0,
        failed = 0,
        skipped = 0;
      try {
        const report = JSON.parse(readFileSync(jsonFile, 'utf8'));
        passed = report.numPassedTests;
        failed = report.numFailedTests;
        skipped = report.numPendingTests + (report.numTodoTests ?? 0);
      } catch {
        failed = 1;
      }
      process.stdout.write(`\n===== ${pkg.name} (${pkg.dir}) =====\n${output}`);
      resolve({ pkg, code: code ?? 1, passed, failed, skipped, seconds: (Date.now() - started) / 1000 });
    });
  });
}

// Two apt-get runs cannot overlap, and the suites run side by side: what they would install on a fresh
// machine (the servers, Chromium, docker-compose, tmux, promtool) is installed here first, once.
if (process.getuid?.() === 0) {
  ensureInfraInstalled();
  ensureChromium();
  ensureDockerCompose();
  ensureTmux();
  ensurePromtool();
}

// The suites that serve the web app (browser, system, client contract) would each build it when missing
// or stale, and a build empties web/dist while another suite is serving it: build it once, before the long
// suites start. The static checks and the short suites need no build and start beside it.
function buildWeb(): Promise<boolean> {
  if (only.length > 0) return Promise.resolve(true);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn('pnpm', ['--filter', '@omc/web', 'run', 'build'], {
      cwd: root,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_ENV: 'production' },
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('exit', (code) => {
      const ok = code === 0;
      process.stdout.write(`\n===== web build =====\n${ok ? 'ok\n' : output}`);
      if (!ok)
        outcomes.push({
          pkg: { name: 'web build', dir: 'web' },
          code: code ?? 1,
          passed: 0,
          failed: 1,
          skipped: 0,
          seconds: (Date.now() - started) / 1000,
        });
      resolve(ok);
    });
  });
}
const packages = testedPackages().filter(
  (p) => only.length === 0 || only.some((o) => p.name.includes(o) || p.dir.includes(o)),
);
// Shared servers given by URL cannot isolate packages from each other: run one at a time then.
const sharedServers = Boolean(process.env.DATABASE_URL || process.env.REDIS_URL || process.env.NATS_URL);
const concurrency = sharedServers || chaos ? 1 : Number(process.env.TEST_CONCURRENCY ?? 2);
// Longest first (as measured in CI), so the two lanes end together instead of one waiting on a long
// suite started last.
const LONGEST_FIRST = [
  '@omc/reliability-tests',
  '@omc/e2e',
  '@omc/game',
  '@omc/auth',
  '@omc/ops-tests',
  '@omc/payments',
  '@omc/gateway',
  '@omc/web',
  '@omc/realtime',
  '@omc/system-tests',
  '@omc/spec-client-tests',
  '@omc/run-tests',
  '@omc/replicas-tests',
];
const rank = (name: string) => {
  const at = LONGEST_FIRST.indexOf(name);
  return at === -1 ? LONGEST_FIRST.length : at;
};
// Suites of a few seconds to half a minute share the third lane with the static checks, so the two long
// lanes start with the long suites; once its checks are done, the third lane takes long suites too.
const SHORT = new Set(['@omc/contracts', '@omc/client', '@omc/bench', '@omc/emulators', '@omc/service-kit']);
const lanes = only.length === 0 && concurrency > 1 && !chaos;
const short = lanes ? packages.filter((p) => SHORT.has(p.name)) : [];
const queue = packages.filter((p) => !short.includes(p)).sort((a, b) => rank(a.name) - rank(b.name));
const outcomes: Outcome[] = [];
const webBuilt = buildWeb();
// The static checks (after the short suites) run as a third lane beside the long suites, in the time
// those spend waiting on servers, containers and browsers, rather than after them.
async function staticChecks(): Promise<void> {
  for (const pkg of short) outcomes.push(await runPackage(pkg));
  if (only.length > 0 || chaos) return;
  outcomes.push(await runCheck('lint', 'eslint', ['.']));
  outcomes.push(await runCheck('format', 'prettier', ['--check', '--log-level=warn', '.']));
  outcomes.push(await runCheck('typecheck', 'tsx', ['scripts/typecheck.ts']));
  // Import circles, docs references, function length and SQL outside repositories, in one process.
  outcomes.push(await runCheck('code checks', 'tsx', ['scripts/checks/all.ts']));
  // Then this lane takes the shortest of the long suites left, from the end of the queue, so the three
  // lanes end together instead of two carrying the second half alone.
  if (!(await webBuilt)) return;
  for (let pkg = queue.pop(); pkg; pkg = queue.pop()) outcomes.push(await runPackage(pkg));
}
await Promise.all([
  ...Array.from({ length: concurrency }, async () => {
    // Without the web app the long suites would each fail on it: the build's failure is the one reported.
    if (!(await webBuilt)) return;
    for (let pkg = queue.shift(); pkg; pkg = queue.shift()) outcomes.push(await runPackage(pkg));
  }),
  staticChecks(),
]);

// Static checks count as one test each: the linter and the formatting over the whole tree (less what
// .prettierignore names), and every package's typecheck.
function runCheck(name: string, bin: string, args: string[]): Promise<Outcome> {
  const started = Date.now();
  const { command, path } = localBin('.', bin);
  return new Promise((resolve) => {
    const child = spawn(command, args, {
      cwd: root,
      env: { ...process.env, PATH: path, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('exit', (code) => {
      const ok = code === 0;
      process.stdout.write(`\n===== ${name} =====\n${ok ? 'ok\n' : output}`);
      resolve({
        pkg: { name, dir: '.' },
        code: code ?? 1,
        passed: ok ? 1 : 0,
        failed: ok ? 0 : 1,
        skipped: 0,
        seconds: (Date.now() - started) / 1000,
      });
    });
  });
}

console.log('\n===== summary =====');
for (const o of outcomes.sort((a, b) => a.pkg.name.localeCompare(b.pkg.name))) {
  const status = o.code === 0 ? 'ok  ' : 'FAIL';
  console.log(
    `${status} ${o.pkg.name.padEnd(24)} ${String(o.passed).padStart(4)} passed ${String(o.failed).padStart(3)} failed ${String(o.skipped).padStart(3)} skipped  ${o.seconds.toFixed(1)} s`,
  );
}
const total = outcomes.reduce(
  (t, o) => ({
    passed: t.passed + o.passed,
    failed: t.failed + o.failed + (o.code !== 0 && o.failed === 0 ? 1 : 0),
    skipped: t.skipped + o.skipped,
  }),
  { passed: 0, failed: 0, skipped: 0 },
);
// What failed, once more at the very end: a long log is often read from its tail only.
const failures = outcomes.flatMap((o) => failedTests(o.pkg));
if (failures.length > 0) {
  console.log('\n===== failed tests =====');
  for (const line of failures) console.log(line);
}
console.log(`\n${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
process.exit(total.failed > 0 || outcomes.some((o) => o.code !== 0) ? 1 : 0);
