// The images: one Dockerfile for every deployable (docker/Dockerfile), built in stages from the pinned
// Node LTS and pnpm, production dependencies only from the lockfile (offline when the context carries
// the store), run as a non-root user with a health check, and started with the package's start script.
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { argDefault, envOf, execForm, last, parseDockerfile, type Stage } from '../src/dockerfile.js';
import { DEPLOYABLES, ROOT, pinnedPnpm, scriptArgs } from '../src/repo.js';

const FILE = join(ROOT, 'docker', 'Dockerfile');
const dockerfile = () => parseDockerfile(FILE);
const stage = (name: string): Stage => dockerfile().stages.find((s) => s.name === name)!;
const runs = () =>
  dockerfile().stages.flatMap((s) => s.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args));

describe('the shared Dockerfile', () => {
  it('is one file for every deployable, none in the packages', () => {
    expect(existsSync(FILE)).toBe(true);
    for (const d of DEPLOYABLES)
      expect(existsSync(join(ROOT, d.dir, 'Dockerfile')), `${d.dir}/Dockerfile`).toBe(false);
  });

  it("builds with Docker 20.10's built-in frontend, offline: no `# syntax=` image to fetch, no heredocs", () => {
    const df = dockerfile();
    expect(df.directives.syntax).toBeUndefined();
    for (const s of df.stages)
      for (const i of s.instructions) expect(i.heredocs, `line ${i.line}`).toEqual([]);
  });

  it('starts from a current Node LTS on Debian slim, named by a build argument, in every stage', () => {
    const df = dockerfile();
    expect(argDefault(df, 'NODE_IMAGE')).toMatch(/^node:(22|24)(\.\d+)*-bookworm-slim$/);
    const stageNames = df.stages.map((s) => s.name);
    for (const s of df.stages) expect([`\${NODE_IMAGE}`, ...stageNames]).toContain(s.from);
    expect(stage('service').from).toBe('${NODE_IMAGE}');
  });

  it("installs the root package.json's pnpm, from the context's offline copy when there is one", () => {
    const pnpm = stage('pnpm');
    expect(argDefault(dockerfile(), 'PNPM_VERSION', pnpm)).toBe(pinnedPnpm());
    const install = pnpm.instructions.find((i) => i.keyword === 'RUN')!.args;
    expect(install).toContain('/offline/pnpm/pnpm-${PNPM_VERSION}.tgz');
    expect(install).toMatch(/npm install --global .*pnpm@\$\{PNPM_VERSION\}/);
  });

  it('fetches every package from the lockfile alone, offline when the store came with the context', () => {
    const deps = stage('deps');
    const copies = deps.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.args);
    expect(copies).toEqual(['pnpm-lock.yaml pnpm-workspace.yaml ./', 'docker/offline/store/ /pnpm/store/']);
    const fetch = deps.instructions.find((i) => i.keyword === 'RUN')!.args;
    expect(fetch).toContain('pnpm fetch --offline');
  });

  it('deploys the package named by PACKAGE_DIR with production dependencies only, offline', () => {
    const deploy = runs().find((r) => r.includes(' deploy '))!;
    expect(deploy).toContain('--filter ./${PACKAGE_DIR} ');
    expect(deploy).toContain('--prod');
    expect(deploy).toContain('--offline');
    expect(deploy).toContain('deploy /out');
  });

  it('runs as a non-root user, with a health check on /healthz, listening on PORT', () => {
    const runtime = stage('service');
    const user = last(runtime, 'USER')?.args ?? '';
    expect(user).toMatch(/^\d+(:\d+)?$/);
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
    const health = last(runtime, 'HEALTHCHECK')!;
    const probe = execForm(health.args.replace(/^(--\S+\s+)*CMD\s+/, ''))!;
    expect(probe.join(' ')).toContain('/healthz');
    expect(health.args).toMatch(/--interval=\d+s/);
    expect(last(runtime, 'EXPOSE')?.args).toBe('${PORT}');
    expect(envOf(runtime).PORT).toBe('${PORT}');
    expect(envOf(runtime).HOST).toBe('0.0.0.0');
  });

  it("runs the package's start script from /app, the deployed package alone", () => {
    const runtime = stage('service');
    expect(last(runtime, 'WORKDIR')?.args).toBe('/app');
    expect(
      runtime.instructions.some((i) => i.keyword === 'COPY' && /^--from=build \/out \.\/$/.test(i.args)),
    ).toBe(true);
    expect(
      runtime.instructions.some((i) => i.keyword === 'COPY' && /^\.\s/.test(i.args)),
      'no build context in the runtime',
    ).toBe(false);
    const command = execForm(last(runtime, 'CMD')!.args);
    for (const d of DEPLOYABLES) expect(command, d.name).toEqual(scriptArgs(d, 'start'));
  });

  it('reads secrets mounted as files through its entrypoint, then runs the command itself', () => {
    const runtime = stage('service');
    expect(execForm(last(runtime, 'ENTRYPOINT')!.args)).toEqual(['omc-entrypoint']);
    const copy = runtime.instructions.find(
      (i) => i.keyword === 'COPY' && i.args.endsWith('/usr/local/bin/omc-entrypoint'),
    )!;
    const script = join(ROOT, copy.args.split(/\s+/)[0]!);
    // Its mode comes from the repository (COPY --chmod needs a newer frontend).
    accessSync(script, constants.X_OK);
    const body = readFileSync(script, 'utf8');
    expect(body.startsWith('#!/bin/sh')).toBe(true);
    expect(body).toContain('JWT_PUBLIC_KEY');
    expect(body.trim().endsWith('exec "$@"')).toBe(true);
  });
});

describe('the gateway target', () => {
  it('is the service runtime plus the built web app, served from WEB_DIST', () => {
    const web = stage('web');
    expect(
      web.instructions.some((i) => i.keyword === 'RUN' && i.args.includes('pnpm --filter ./web run build')),
    ).toBe(true);
    const gateway = stage('gateway');
    expect(gateway.from).toBe('service');
    expect(gateway.instructions.find((i) => i.keyword === 'COPY')!.args).toBe(
      '--from=web /workspace/web/dist ./web',
    );
    expect(envOf(gateway).WEB_DIST).toBe('/app/web');
    expect(envOf(gateway).GATEWAY_PORT).toBe('${PORT}');
    // Its health check asks the internal listener: the public port answers /healthz with a 404.
    expect(envOf(gateway).GATEWAY_INTERNAL_PORT).toBe('${INTERNAL_PORT}');
    const health = last(gateway, 'HEALTHCHECK')!;
    const probe = execForm(health.args.replace(/^(--\S+\s+)*CMD\s+/, ''))!.join(' ');
    expect(probe).toContain("process.env.GATEWAY_INTERNAL_PORT + '/healthz'");
  });
});

describe('.dockerignore', () => {
  it('keeps dependencies, data, history and build output out of the build context', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['**/node_modules', '.git', '.data', '**/dist', '.env', 'docker/stand-ins'])
      expect(ignored).toContain(entry);
    expect(ignored.some((l) => l.startsWith('docker/offline'))).toBe(false);
  });
});
