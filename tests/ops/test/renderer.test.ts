// The built-in kustomize renderer's pieces, on small inputs with known answers, so it stays right on a
// machine without kubectl (where kubernetes.test.ts cannot compare it with kubectl's output).
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { kustomizeHash, parseImage, renderBuiltin, selects, strategicMerge } from '../src/kustomize.js';

const dir = mkdtempSync(join(tmpdir(), 'omc-kustomize-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('built-in kustomize renderer', () => {
  it('hashes a generated ConfigMap as kustomize 5 does', () => {
    // `configMapGenerator: [{ name: a, literals: [K=V] }]` renders as a-882hgddftf with kubectl 1.32.
    expect(
      kustomizeHash({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { K: 'V' } }),
    ).toBe('882hgddftf');
  });

  it('merges lists by their merge keys and replaces the others', () => {
    const base = {
      containers: [
        { name: 'a', image: 'x', args: ['1', '2'] },
        { name: 'b', image: 'y' },
      ],
    };
    const merged = strategicMerge(base, {
      containers: [
        { name: 'a', args: ['3'] },
        { name: 'c', image: 'z' },
      ],
    });
    expect(merged).toEqual({
      containers: [
        { name: 'a', image: 'x', args: ['3'] },
        { name: 'b', image: 'y' },
        { name: 'c', image: 'z' },
      ],
    });
    expect(strategicMerge({ a: 1, b: 2 }, { b: null })).toEqual({ a: 1 });
  });

  it('reads label selectors and image references', () => {
    const labels = { 'app.kubernetes.io/component': 'service', tier: 'web' };
    expect(selects('app.kubernetes.io/component in (service,gateway)', labels)).toBe(true);
    expect(selects('app.kubernetes.io/component in (gateway),tier=web', labels)).toBe(false);
    expect(selects('tier!=db,!missing', labels)).toBe(true);
    expect(parseImage('registry.example.com:5000/omc/game:1.2.3')).toEqual({
      name: 'registry.example.com:5000/omc/game',
      tag: '1.2.3',
    });
    expect(parseImage('omc/game')).toEqual({ name: 'omc/game' });
  });

  it('renders an overlay: namespace, generators with references, images, replicas and both kinds of patch', () => {
    const base = join(dir, 'base');
    const overlay = join(dir, 'overlay');
    for (const d of [base, overlay]) mkdirSync(d, { recursive: true });
    writeFileSync(
      join(base, 'kustomization.yaml'),
      'resources: [app.yaml]\nconfigMapGenerator:\n  - name: settings\n    literals: [A=1]\n',
    );
    writeFileSync(
      join(base, 'app.yaml'),
      `apiVersion: apps/v1
kind: Deployment
metadata: { name: app }
spec:
  selector: { matchLabels: { app: app } }
  template:
    metadata: { labels: { app: app } }
    spec:
      containers:
        - name: app
          image: omc/app:dev
          envFrom: [{ configMapRef: { name: settings } }]
`,
    );
    writeFileSync(
      join(overlay, 'kustomization.yaml'),
      `namespace: prod
resources: [../base]
configMapGenerator:
  - name: settings
    behavior: merge
    literals: [B=2]
images:
  - name: omc/app
    newName: registry.example.com/omc/app
    newTag: 1.0.0
replicas:
  - name: app
    count: 3
patches:
  - target: { kind: Deployment, name: app }
    patch: |-
      - op: add
        path: /metadata/annotations
        value: { patched: json }
  - path: resources.yaml
`,
    );
    writeFileSync(
      join(overlay, 'resources.yaml'),
      'apiVersion: apps/v1\nkind: Deployment\nmetadata: { name: app }\nspec:\n  template:\n    spec:\n      containers:\n        - name: app\n          resources: { limits: { cpu: "1" } }\n',
    );
    const objects = renderBuiltin(overlay);
    const settings = objects.find((o) => o.kind === 'ConfigMap')!;
    expect(settings.data).toEqual({ A: '1', B: '2' });
    expect(settings.metadata.name).toMatch(/^settings-[a-z0-9]{10}$/);
    const app = objects.find((o) => o.kind === 'Deployment')! as any;
    expect(app.metadata.namespace).toBe('prod');
    expect(app.metadata.annotations).toEqual({ patched: 'json' });
    expect(app.spec.replicas).toBe(3);
    const container = app.spec.template.spec.containers[0];
    expect(container.image).toBe('registry.example.com/omc/app:1.0.0');
    expect(container.resources).toEqual({ limits: { cpu: '1' } });
    expect(container.envFrom[0].configMapRef.name).toBe(settings.metadata.name);
  });

  it('refuses what it does not implement instead of rendering it wrong', () => {
    const other = join(dir, 'unsupported');
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'kustomization.yaml'), 'namePrefix: x-\nresources: []\n');
    expect(() => renderBuiltin(other)).toThrow(/does not implement namePrefix/);
  });
});
