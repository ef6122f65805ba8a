// Each deployable's image: built in stages from the pinned Node LTS and pnpm, production dependencies
// only, run as a non-root user with a health check, and started with its package's start script.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { argDefault, envOf, execForm, last, parseDockerfile } from '../src/dockerfile.js';
import { DEPLOYABLES, ROOT, pinnedPnpm, scriptArgs } from '../src/repo.js';

describe.each(DEPLOYABLES.map((d) => [d.name, d] as const))('%s image', (_name, d) => {
  const file = join(ROOT, d.dir, 'Dockerfile');
  const dockerfile = () => parseDockerfile(file);
  const runtime = () => dockerfile().stages.at(-1)!;

  it('has a Dockerfile in its package folder, built in several stages', () => {
    expect(existsSync(file), `${d.dir}/Dockerfile`).toBe(true);
    const df = dockerfile();
    expect(df.directives.syntax).toMatch(/^docker\/dockerfile:1/);
    expect(df.stages.length).toBeGreaterThanOrEqual(3);
  });

  it('starts from a current Node LTS on Debian slim, in every stage', () => {
    const df = dockerfile();
    expect(argDefault(df, 'NODE_IMAGE')).toMatch(/^node:(22|24)(\.\d+)*-bookworm-slim$/);
    const stageNames = df.stages.map((s) => s.name);
    for (const stage of df.stages) expect([`\${NODE_IMAGE}`, ...stageNames]).toContain(stage.from);
    expect(runtime().from).toBe('${NODE_IMAGE}');
  });

  it('installs the pnpm of the root package.json and only production dependencies', () => {
    const df = dockerfile();
    const pnpmStage = df.stages.find((s) =>
      s.instructions.some((i) => i.keyword === 'RUN' && /npm install --global .*pnpm@/.test(i.args)),
    )!;
    expect(pnpmStage, 'a stage installing pnpm').toBeDefined();
    expect(argDefault(df, 'PNPM_VERSION', pnpmStage)).toBe(pinnedPnpm());
    const runs = df.stages.flatMap((s) =>
      s.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args),
    );
    const deploy = runs.find((r) => r.includes(' deploy '));
    expect(deploy, 'a pnpm deploy of the package').toBeDefined();
    expect(deploy).toContain(`--filter ./${d.dir} `);
    expect(deploy).toContain('--prod');
    // Dependencies come from the lockfile alone first, so source changes do not refetch them.
    const deps = df.stages.find((s) => s.name === 'deps')!;
    expect(deps.instructions.find((i) => i.keyword === 'COPY')!.args).toBe(
      'pnpm-lock.yaml pnpm-workspace.yaml ./',
    );
    expect(deps.instructions.find((i) => i.keyword === 'RUN')!.args).toBe('pnpm fetch --prod');
  });

  it('runs as a non-root user, with a health check on /healthz', () => {
    const stage = runtime();
    const user = last(stage, 'USER')?.args ?? '';
    expect(user).toMatch(/^\d+(:\d+)?$/);
    expect(Number(user.split(':')[0])).toBeGreaterThan(0);
    const health = last(stage, 'HEALTHCHECK')!;
    expect(health, 'HEALTHCHECK').toBeDefined();
    const probe = execForm(health.args.replace(/^(--\S+\s+)*CMD\s+/, ''))!;
    expect(probe.join(' ')).toContain('/healthz');
    expect(health.args).toMatch(/--interval=\d+s/);
  });

  it('listens on its default port', () => {
    const stage = runtime();
    expect(last(stage, 'EXPOSE')?.args).toBe(String(d.defaultPort));
    expect(envOf(stage).PORT).toBe(String(d.defaultPort));
    expect(envOf(stage).HOST).toBe('0.0.0.0');
    if (d.name === 'gateway') expect(envOf(stage).GATEWAY_PORT).toBe(String(d.defaultPort));
  });

  it("runs its package's start script from the package's own folder", () => {
    const stage = runtime();
    expect(execForm(last(stage, 'CMD')!.args)).toEqual(scriptArgs(d, 'start'));
    expect(last(stage, 'WORKDIR')?.args).toBe('/app');
    // The deployed package (its package.json, src/ and node_modules) is what lands in /app.
    expect(
      stage.instructions.some((i) => i.keyword === 'COPY' && /^--from=build \/out \.\/$/.test(i.args)),
    ).toBe(true);
    expect(
      stage.instructions.some((i) => i.keyword === 'COPY' && /^\.\s/.test(i.args)),
      'no build context in the runtime stage',
    ).toBe(false);
  });

  it('reads secrets mounted as files through its entrypoint, then runs the command itself', () => {
    const stage = runtime();
    expect(execForm(last(stage, 'ENTRYPOINT')!.args)).toEqual(['omc-entrypoint']);
    const script = stage.instructions.find(
      (i) => i.keyword === 'COPY' && i.args.includes('/usr/local/bin/omc-entrypoint'),
    )!;
    expect(script.args).toContain('--chmod=0755');
    const body = script.heredocs[0]!;
    expect(body.startsWith('#!/bin/sh')).toBe(true);
    expect(body).toContain('JWT_PUBLIC_KEY');
    expect(body.trim().endsWith('exec "$@"')).toBe(true);
  });
});

describe('gateway image', () => {
  it('builds the web app and serves it from WEB_DIST', () => {
    const df = parseDockerfile(join(ROOT, 'gateway/Dockerfile'));
    const web = df.stages.find((s) => s.name === 'web')!;
    expect(web, 'a stage building web/').toBeDefined();
    expect(
      web.instructions.some((i) => i.keyword === 'RUN' && i.args.includes('pnpm --filter ./web run build')),
    ).toBe(true);
    const runtime = df.stages.at(-1)!;
    const copy = runtime.instructions.find((i) => i.keyword === 'COPY' && i.args.startsWith('--from=web '))!;
    expect(copy.args).toBe('--from=web /workspace/web/dist ./web');
    expect(envOf(runtime).WEB_DIST).toBe('/app/web');
  });
});

describe('.dockerignore', () => {
  it('keeps dependencies, data, history and build output out of the build context', () => {
    const ignored = readFileSync(join(ROOT, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['**/node_modules', '.git', '.data', '**/dist', '.env'])
      expect(ignored).toContain(entry);
  });
});
