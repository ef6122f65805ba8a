// A build empties web/dist before writing it again, so whatever serves the app meanwhile answers "not
// built": npm start and the suites build it only when a source is newer than the built index.html.
import { ensureWebBuilt, webBuildIsCurrent } from '@omc/infra';
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const roots: string[] = [];
const path = process.env.PATH;
afterEach(() => {
  process.env.PATH = path;
  for (const root of roots.splice(0)) rmSync(root, { recursive: true, force: true });
});

/** A workspace with one web source and a built index.html, each written at the given time (s). */
function workspace(sourceAt: number, builtAt?: number): string {
  const root = mkdtempSync(join(tmpdir(), 'omc-web-build-'));
  roots.push(root);
  for (const dir of ['web/src', 'web/dist', 'packages/contracts/src'])
    mkdirSync(join(root, dir), { recursive: true });
  const at = (path: string, seconds: number) => {
    writeFileSync(join(root, path), 'x');
    utimesSync(join(root, path), seconds, seconds);
  };
  at('web/src/main.tsx', sourceAt);
  for (const dir of ['web/src', 'web/dist', 'web', 'packages/contracts/src'])
    utimesSync(join(root, dir), 1, 1);
  if (builtAt !== undefined) at('web/dist/index.html', builtAt);
  return root;
}

describe('the web app is built again only when its sources changed', () => {
  it('a build newer than every source is current, and ensureWebBuilt leaves it alone', () => {
    const root = workspace(1_000, 2_000);
    expect(webBuildIsCurrent(root)).toBe(true);
    // With no pnpm to be found, a build would fail and throw.
    process.env.PATH = '';
    expect(() => ensureWebBuilt(root, { stdio: 'ignore' })).not.toThrow();
  });

  it('a source changed after the build, or no build at all, is stale and built again', () => {
    expect(webBuildIsCurrent(workspace(3_000, 2_000))).toBe(false);
    expect(webBuildIsCurrent(workspace(1_000))).toBe(false);
    const stale = workspace(3_000, 2_000);
    process.env.PATH = '';
    expect(() => ensureWebBuilt(stale, { stdio: 'ignore' })).toThrow(/did not build/);
  });
});
