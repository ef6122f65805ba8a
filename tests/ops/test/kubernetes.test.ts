// k8s/: every overlay renders, every object (rendered, and as written) is valid for the Kubernetes API,
// and the manifests say what operators rely on: probes, limits, hardening, autoscaling, disruption
// budgets, network policies that admit only the callers each service needs, migrations, secrets kept out.
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { redisPasswordVariable, redisUserArgs } from '@omc/infra';
import { allowed, externalEgressAllowed, type Endpoint } from '../src/netpol.js';
import { kubectlAvailable, podSpecs, render, renderBuiltin, renderWithKubectl } from '../src/kustomize.js';
import { DEPLOYABLES, K8S, OVERLAYS, deployablesIn, scriptArgs, type Overlay } from '../src/repo.js';
import { validateObject } from '../src/schema.js';
import { realLookingSecret } from '../src/secrets.js';
import { isK8sObject, loadAllYaml, objectKey, type K8sObject } from '../src/yaml.js';

const rendered = {} as Record<Overlay | 'base', K8sObject[]>;
let renderer = '';

beforeAll(() => {
  for (const overlay of ['base', ...OVERLAYS] as const) {
    const dir = overlay === 'base' ? join(K8S, 'base') : join(K8S, 'overlays', overlay);
    const result = render(dir);
    renderer = result.renderer;
    rendered[overlay] = result.objects;
  }
  if (renderer === 'kubectl') console.log('[ops] rendering k8s/ with kubectl kustomize');
  else
    console.log(
      '[ops] kubectl is not installed: rendering k8s/ with the built-in kustomize renderer (tests/ops/src/kustomize.ts)',
    );
});

function find(objects: K8sObject[], kind: string, name: string): K8sObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
}

type Container = {
  name: string;
  image: string;
  args?: string[];
  command?: string[];
  ports?: { containerPort: number; name?: string }[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  envFrom?: { configMapRef?: { name: string } }[];
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[] };
  };
  livenessProbe?: { httpGet?: { path: string; port: string | number } };
  readinessProbe?: { httpGet?: { path: string; port: string | number } };
  startupProbe?: { httpGet?: { path: string; port: string | number } };
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
};
type PodSpec = {
  containers: Container[];
  serviceAccountName?: string;
  automountServiceAccountToken?: boolean;
  shareProcessNamespace?: boolean;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number; seccompProfile?: { type: string } };
  volumes?: { name: string; emptyDir?: object }[];
};
const podOf = (o: K8sObject) => (o.spec as { template: { spec: PodSpec } }).template.spec;
const templateLabels = (o: K8sObject) =>
  (o.spec as { template?: { metadata: { labels: Record<string, string> } } } | undefined)?.template?.metadata
    .labels as Record<string, string>;
const templateAnnotations = (o: K8sObject) =>
  ((o.spec as { template?: { metadata: { annotations?: Record<string, string> } } } | undefined)?.template
    ?.metadata.annotations ?? {}) as Record<string, string>;

/** Every YAML document under k8s/ that is a Kubernetes object, with its file. */
function writtenObjects(): { file: string; object: K8sObject }[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.ya?ml$/.test(entry) && !/^kustomization\.ya?ml$/.test(entry)) files.push(path);
    }
  };
  walk(K8S);
  return files.flatMap((file) =>
    loadAllYaml(file)
      .filter(isK8sObject)
      .map((object) => ({ file: relative(K8S, file), object })),
  );
}

describe('rendering', () => {
  it.each(['base', ...OVERLAYS])('renders %s', (overlay) => {
    expect(rendered[overlay as Overlay].length).toBeGreaterThan(20);
  });

  it('the built-in renderer agrees with kubectl kustomize, object for object', () => {
    if (!kubectlAvailable()) {
      // Nothing to compare with here; the overlays were rendered (and are checked below) by the built-in renderer.
      console.log(
        '[ops] kubectl is not installed: the built-in renderer is not compared with kubectl on this machine',
      );
      for (const overlay of OVERLAYS)
        expect(renderBuiltin(join(K8S, 'overlays', overlay)).length).toBeGreaterThan(20);
      return;
    }
    for (const dir of [join(K8S, 'base'), ...OVERLAYS.map((o) => join(K8S, 'overlays', o))]) {
      const byKey = (objects: K8sObject[]) =>
        new Map(normalizeGeneratedNames(objects).map((o) => [objectKey(o), o]));
      const kubectl = byKey(renderWithKubectl(dir));
      const builtin = byKey(renderBuiltin(dir));
      expect([...builtin.keys()].sort(), relative(K8S, dir)).toEqual([...kubectl.keys()].sort());
      for (const [key, object] of kubectl)
        expect(isDeepStrictEqual(builtin.get(key), object), `${relative(K8S, dir)} ${key}`).toBe(true);
    }
  });
});

/** Generated ConfigMaps and Secrets end in a content hash; compare them (and references to them) without it. */
function normalizeGeneratedNames(objects: K8sObject[]): K8sObject[] {
  let text = JSON.stringify(objects);
  for (const o of objects) {
    const m = (o.kind === 'ConfigMap' || o.kind === 'Secret') && o.metadata.name.match(/^(.*)-[a-z0-9]{10}$/);
    if (m) text = text.split(`"${o.metadata.name}"`).join(`"${m[1]}-<hash>"`);
  }
  return JSON.parse(text) as K8sObject[];
}

describe('schemas', () => {
  it.each(['base', ...OVERLAYS])(
    'every object rendered for %s is valid for the Kubernetes API, with no unknown field',
    (overlay) => {
      const problems = rendered[overlay as Overlay].flatMap((o) =>
        validateObject(o).map((p) => `${objectKey(o)}: ${p}`),
      );
      expect(problems).toEqual([]);
    },
  );

  it('every object as written in k8s/ is valid, patches and examples included', () => {
    const written = writtenObjects();
    expect(written.length).toBeGreaterThan(30);
    // Patches name only what they change: check their fields, not their completeness.
    const problems = written.flatMap(({ file, object }) =>
      validateObject(object)
        .filter((p) => !(/(autoscaling|spread)\.yaml$/.test(file) && /must have required property/.test(p)))
        .map((p) => `${file} ${objectKey(object)}: ${p}`),
    );
    expect(problems).toEqual([]);
  });

  it('the strict check catches a misspelt field and a wrong type', () => {
    const deployment = structuredClone(find(rendered.prod, 'Deployment', 'game'));
    const container = podOf(deployment).containers[0] as Container & {
      securityContext: Record<string, unknown>;
    };
    container.securityContext.readOnlyRootFileSystem = true;
    (deployment.spec as Record<string, unknown>).replicas = 'three';
    const problems = validateObject(deployment).join('\n');
    expect(problems).toContain(
      'unknown field spec.template.spec.containers[0].securityContext.readOnlyRootFileSystem',
    );
    expect(problems).toContain('replicas must be integer');
  });
});

describe.each(OVERLAYS.map((o) => [o] as const))('%s overlay', (overlay) => {
  const objects = () => rendered[overlay];
  const namespace = overlay === 'dev' ? 'omc-dev' : 'omc';

  it('puts everything in its own namespace, enforcing pod security', () => {
    const ns = find(objects(), 'Namespace', namespace);
    expect(ns.metadata.labels!['pod-security.kubernetes.io/enforce']).toBe(
      overlay === 'prod' ? 'restricted' : 'baseline',
    );
    for (const o of objects().filter((x) => x.kind !== 'Namespace'))
      expect(o.metadata.namespace, objectKey(o)).toBe(namespace);
  });

  it.each(deployablesIn(overlay).map((d) => [d.name, d] as const))(
    'runs %s as a Deployment with a Service and a ServiceAccount on its port',
    (_n, d) => {
      const deployment = find(objects(), 'Deployment', d.name);
      const pod = podOf(deployment);
      const [container] = pod.containers;
      // The gateway's liveness, readiness and metrics have their own port, which the Service leaves out.
      expect(container!.ports).toEqual([
        { name: 'http', containerPort: d.defaultPort, protocol: 'TCP' },
        ...(d.internalPort ? [{ name: 'internal', containerPort: d.internalPort, protocol: 'TCP' }] : []),
        ...(d.callsPort ? [{ name: 'internal', containerPort: d.callsPort, protocol: 'TCP' }] : []),
        ...(d.metricsPort ? [{ name: 'metrics', containerPort: d.metricsPort, protocol: 'TCP' }] : []),
      ]);
      if (d.metricsPort)
        expect(container!.env!.find((e) => e.name === 'METRICS_PORT')?.value).toBe(String(d.metricsPort));
      if (d.callsPort)
        expect(container!.env!.find((e) => e.name === 'INTERNAL_PORT')?.value).toBe(String(d.callsPort));
      if (d.internalPort)
        expect(container!.env!.find((e) => e.name === 'GATEWAY_INTERNAL_PORT')?.value).toBe(
          String(d.internalPort),
        );
      // Prometheus scrapes the system's own parts (not the emulators) where /metrics answers.
      if (d.name !== 'emulators')
        expect(templateAnnotations(deployment)['prometheus.io/port']).toBe(
          String(d.internalPort ?? d.metricsPort ?? d.defaultPort),
        );
      expect(container!.env!.find((e) => e.name === 'PORT')?.value).toBe(String(d.defaultPort));
      expect(container!.image).toBe(
        overlay === 'dev' ? `omc/${d.name}:dev` : `registry.example.com/omc/${d.name}:0.0.0`,
      );
      // No command or args: the image runs its package's start script.
      expect(container!.command).toBeUndefined();
      expect(container!.args).toBeUndefined();
      const service = find(objects(), 'Service', d.name);
      expect((service.spec as { ports: { port: number; targetPort: string }[] }).ports).toEqual([
        { name: 'http', port: d.defaultPort, targetPort: 'http', protocol: 'TCP' },
        ...(d.callsPort
          ? [{ name: 'internal', port: d.callsPort, targetPort: 'internal', protocol: 'TCP' }]
          : []),
        ...(d.metricsPort
          ? [{ name: 'metrics', port: d.metricsPort, targetPort: 'metrics', protocol: 'TCP' }]
          : []),
      ]);
      expect((service.spec as { selector: Record<string, string> }).selector).toEqual({
        'app.kubernetes.io/name': d.name,
      });
      expect(templateLabels(deployment)['app.kubernetes.io/name']).toBe(d.name);
      expect(find(objects(), 'ServiceAccount', d.name).automountServiceAccountToken).toBe(false);
      expect(pod.serviceAccountName).toBe(d.name);
      expect(pod.automountServiceAccountToken).toBe(false);
    },
  );

  it.each(deployablesIn(overlay).map((d) => [d.name, d] as const))(
    'probes %s: liveness and start-up on /healthz, readiness on /readyz',
    (name, d) => {
      const [container] = podOf(find(objects(), 'Deployment', name)).containers;
      const port = d.internalPort ? 'internal' : 'http';
      expect(container!.livenessProbe?.httpGet).toEqual({ path: '/healthz', port });
      expect(container!.startupProbe?.httpGet).toEqual({ path: '/healthz', port });
      expect(container!.readinessProbe?.httpGet).toEqual({ path: '/readyz', port });
    },
  );

  it('sets requests and limits and hardens every container of every workload', () => {
    const workloads = objects().filter((o) => ['Deployment', 'StatefulSet', 'Job'].includes(o.kind));
    expect(workloads.length).toBeGreaterThan(5);
    for (const o of workloads) {
      const pod = podOf(o);
      expect(pod.securityContext?.runAsNonRoot, objectKey(o)).toBe(true);
      expect(pod.securityContext?.seccompProfile?.type, objectKey(o)).toBe('RuntimeDefault');
      for (const c of pod.containers) {
        const where = `${objectKey(o)} ${c.name}`;
        for (const r of ['cpu', 'memory']) {
          expect(c.resources?.requests?.[r], `${where} requests.${r}`).toBeDefined();
          expect(c.resources?.limits?.[r], `${where} limits.${r}`).toBeDefined();
        }
        expect(c.securityContext?.allowPrivilegeEscalation, where).toBe(false);
        expect(c.securityContext?.readOnlyRootFilesystem, where).toBe(true);
        expect(c.securityContext?.capabilities?.drop, where).toEqual(['ALL']);
        expect(c.image, where).toMatch(/:[\w.-]+$/);
        expect(c.image, where).not.toMatch(/:latest$/);
      }
    }
  });

  it("gives the system's containers a writable /tmp on a read-only root", () => {
    for (const o of objects().filter((x) =>
      ['service', 'gateway', 'emulator', 'migration'].includes(
        templateLabels(x)?.['app.kubernetes.io/component'] ?? '',
      ),
    )) {
      const pod = podOf(o);
      const mount = pod.containers[0]!.volumeMounts?.find((m) => m.mountPath === '/tmp');
      expect(mount, objectKey(o)).toBeDefined();
      expect(pod.volumes?.find((v) => v.name === mount!.name)?.emptyDir, objectKey(o)).toBeDefined();
    }
  });

  it('scales the gateway, game and realtime with autoscalers, and only those', () => {
    const hpas = objects().filter((o) => o.kind === 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.metadata.name).sort()).toEqual(['game', 'gateway', 'realtime']);
    for (const hpa of hpas) {
      const spec = hpa.spec as {
        scaleTargetRef: { kind: string; name: string };
        minReplicas: number;
        maxReplicas: number;
      };
      expect(spec.scaleTargetRef.kind).toBe('Deployment');
      find(objects(), 'Deployment', spec.scaleTargetRef.name);
      expect(spec.minReplicas).toBeLessThan(spec.maxReplicas);
      expect(spec.minReplicas).toBeGreaterThanOrEqual(overlay === 'prod' ? 3 : 1);
      // The autoscaler owns the replica count: a Deployment that set one would fight it on every apply.
      expect(
        (find(objects(), 'Deployment', spec.scaleTargetRef.name).spec as { replicas?: number }).replicas,
      ).toBeUndefined();
    }
  });

  it('protects every service from voluntary disruption with a budget that selects its pods', () => {
    for (const d of deployablesIn(overlay).filter((x) => x.name !== 'emulators')) {
      const pdb = find(objects(), 'PodDisruptionBudget', d.name);
      const spec = pdb.spec as { maxUnavailable?: number; selector: { matchLabels: Record<string, string> } };
      expect(spec.maxUnavailable).toBe(1);
      const labels = templateLabels(find(objects(), 'Deployment', d.name));
      for (const [k, v] of Object.entries(spec.selector.matchLabels)) expect(labels[k]).toBe(v);
    }
  });

  it("migrates each database with a Job that runs the package's migrate script", () => {
    for (const d of DEPLOYABLES.filter((x) => x.database)) {
      const job = find(objects(), 'Job', `${d.name}-migrate`);
      const [container] = podOf(job).containers;
      expect(container!.args).toEqual(scriptArgs(d, 'migrate'));
      expect(container!.image).toBe(podOf(find(objects(), 'Deployment', d.name)).containers[0]!.image);
      const databaseUrl = container!.env!.find((e) => e.name === 'DATABASE_URL')!.valueFrom!.secretKeyRef!;
      const serviceUrl = podOf(find(objects(), 'Deployment', d.name)).containers[0]!.env!.find(
        (e) => e.name === 'DATABASE_URL',
      )!.valueFrom!.secretKeyRef!;
      expect(databaseUrl).toEqual(serviceUrl);
    }
  });

  it('routes /socket.io to realtime over websockets and everything else to the gateway', () => {
    const ingress = find(objects(), 'Ingress', 'omc');
    const annotations = ingress.metadata.annotations!;
    expect(Number(annotations['nginx.ingress.kubernetes.io/proxy-read-timeout'])).toBeGreaterThanOrEqual(
      3600,
    );
    expect(Number(annotations['nginx.ingress.kubernetes.io/proxy-send-timeout'])).toBeGreaterThanOrEqual(
      3600,
    );
    const spec = ingress.spec as {
      ingressClassName: string;
      tls?: unknown[];
      rules: {
        http: {
          paths: {
            path: string;
            pathType: string;
            backend: { service: { name: string; port: { name: string } } };
          }[];
        };
      }[];
    };
    expect(spec.ingressClassName).toBe('nginx');
    const paths = Object.fromEntries(spec.rules[0]!.http.paths.map((p) => [p.path, p.backend.service]));
    expect(paths['/socket.io']).toEqual({ name: 'realtime', port: { name: 'http' } });
    expect(paths['/']).toEqual({ name: 'gateway', port: { name: 'http' } });
    for (const backend of Object.values(paths)) find(objects(), 'Service', backend.name);
    expect(spec.tls !== undefined).toBe(overlay === 'prod');
  });

  it('lets each service be called only by the callers it needs', () => {
    const policies = objects().filter((o) => o.kind === 'NetworkPolicy');
    const nsLabels = { 'kubernetes.io/metadata.name': namespace };
    const pod = (name: string): Endpoint => ({
      labels: templateLabels(find(objects(), 'Deployment', name)),
      namespaceLabels: nsLabels,
    });
    const names = deployablesIn(overlay).map((d) => d.name);
    const expected = new Set([
      'gateway->auth',
      'gateway->game',
      'gateway->payments',
      'gateway->realtime',
      'auth->game',
      'auth->payments',
      'payments->auth',
      // Reconciliation: payments reads the game's wins, the game payments' completed purchases.
      'payments->game',
      'game->payments',
      ...(overlay === 'dev' ? ['payments->emulators'] : []),
    ]);
    const actual = new Set<string>();
    for (const from of names)
      for (const to of names) {
        if (from === to) continue;
        const port = DEPLOYABLES.find((d) => d.name === to)!.defaultPort;
        if (allowed(policies, nsLabels, pod(from), pod(to), port)) actual.add(`${from}->${to}`);
      }
    expect([...actual].sort()).toEqual([...expected].sort());

    // From outside the namespace: the ingress controller reaches the gateway and realtime only; Prometheus scrapes all, on their metrics ports.
    const ingressController: Endpoint = {
      labels: {},
      namespaceLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' },
    };
    const monitoring: Endpoint = {
      labels: {},
      namespaceLabels: { 'kubernetes.io/metadata.name': 'monitoring' },
    };
    const elsewhere: Endpoint = { labels: {}, namespaceLabels: { 'kubernetes.io/metadata.name': 'default' } };
    for (const name of names) {
      const port = DEPLOYABLES.find((d) => d.name === name)!.defaultPort;
      expect(
        allowed(policies, nsLabels, ingressController, pod(name), port),
        `ingress-nginx -> ${name}`,
      ).toBe(['gateway', 'realtime'].includes(name));
      const d = DEPLOYABLES.find((x) => x.name === name)!;
      const scraped = d.internalPort ?? d.metricsPort ?? port;
      expect(allowed(policies, nsLabels, monitoring, pod(name), scraped), `monitoring -> ${name}`).toBe(
        name !== 'emulators',
      );
      if (scraped !== port) {
        // The metrics port (the gateway's internal one) is Prometheus's alone, and the main port is not Prometheus's.
        expect(
          allowed(policies, nsLabels, monitoring, pod(name), port),
          `monitoring -> ${name}:${port}`,
        ).toBe(false);
        expect(
          allowed(policies, nsLabels, ingressController, pod(name), scraped),
          `ingress -> ${name}:${scraped}`,
        ).toBe(false);
        for (const other of names.filter((n) => n !== name))
          expect(
            allowed(policies, nsLabels, pod(other), pod(name), scraped),
            `${other} -> ${name}:${scraped}`,
          ).toBe(false);
      }
      expect(allowed(policies, nsLabels, elsewhere, pod(name), port), `default -> ${name}`).toBe(false);
    }
  });

  it("admits auth and payments alone on the port of the game's internal routes (role change, refund take-back)", () => {
    const policies = objects().filter((o) => o.kind === 'NetworkPolicy');
    const nsLabels = { 'kubernetes.io/metadata.name': namespace };
    const pod = (name: string): Endpoint => ({
      labels: templateLabels(find(objects(), 'Deployment', name)),
      namespaceLabels: nsLabels,
    });
    const [container] = podOf(find(objects(), 'Deployment', 'game')).containers;
    const rolePort = Number(container!.env!.find((e) => e.name === 'INTERNAL_PORT')?.value);
    expect(rolePort, 'the game sets INTERNAL_PORT').toBeGreaterThan(0);
    expect(container!.ports!.map((p) => p.containerPort)).toContain(rolePort);
    const outside = ['monitoring', 'ingress-nginx', 'default'].map((ns): Endpoint => ({
      labels: {},
      namespaceLabels: { 'kubernetes.io/metadata.name': ns },
    }));
    const callers = deployablesIn(overlay)
      .map((d) => d.name)
      .filter((n) => n !== 'game');
    for (const caller of callers)
      expect(
        allowed(policies, nsLabels, pod(caller), pod('game'), rolePort),
        `${caller} -> game:${rolePort}`,
      ).toBe(caller === 'auth' || caller === 'payments');
    for (const endpoint of outside)
      expect(allowed(policies, nsLabels, endpoint, pod('game'), rolePort)).toBe(false);
    // Auth and payments find it there.
    const settings = objects().find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('omc-settings-'),
    )!.data as Record<string, string>;
    expect(settings.GAME_INTERNAL_URL).toBe(`http://game:${rolePort}`);
  });

  it('lets each service reach the datastores it uses and no other, and payments its providers only in production', () => {
    const policies = objects().filter((o) => o.kind === 'NetworkPolicy');
    const nsLabels = { 'kubernetes.io/metadata.name': namespace };
    const servers = { postgres: 5432, redis: 6379, nats: 4222 };
    const uses: Record<string, (keyof typeof servers)[]> = {
      auth: ['postgres', 'redis', 'nats'],
      game: ['postgres', 'redis', 'nats'],
      payments: ['postgres', 'nats'],
      realtime: ['redis', 'nats'],
      gateway: ['redis'],
      emulators: [],
    };
    for (const d of deployablesIn(overlay)) {
      const labels = templateLabels(find(objects(), 'Deployment', d.name));
      for (const [server, port] of Object.entries(servers)) {
        // Production's servers are managed outside the cluster; dev's are pods of the namespace.
        const target: Endpoint =
          overlay === 'dev'
            ? { labels: templateLabels(find(objects(), 'StatefulSet', server)), namespaceLabels: nsLabels }
            : { namespaceLabels: {} };
        const ok =
          overlay === 'dev'
            ? allowed(policies, nsLabels, { labels, namespaceLabels: nsLabels }, target, port)
            : externalEgressAllowed(policies, labels, port);
        expect(ok, `${d.name} -> ${server}`).toBe(uses[d.name]!.includes(server as keyof typeof servers));
      }
      if (d.name !== 'emulators')
        expect(externalEgressAllowed(policies, labels, 443), `${d.name} -> internet:443`).toBe(
          overlay === 'prod' && d.name === 'payments',
        );
    }
    for (const job of objects().filter((o) => o.kind === 'Job' && o.metadata.name.endsWith('-migrate'))) {
      const labels = templateLabels(job);
      for (const [server, port] of Object.entries(servers)) {
        const ok =
          overlay === 'dev'
            ? allowed(
                policies,
                nsLabels,
                { labels, namespaceLabels: nsLabels },
                { labels: templateLabels(find(objects(), 'StatefulSet', server)), namespaceLabels: nsLabels },
                port,
              )
            : externalEgressAllowed(policies, labels, port);
        expect(ok, `${job.metadata.name} -> ${server}`).toBe(server === 'postgres');
      }
    }
    // Nothing but the deny and DNS applies to every pod.
    for (const policy of policies.filter((p) => !['default-deny', 'allow-dns'].includes(p.metadata.name)))
      expect(
        Object.keys((policy.spec as { podSelector: object }).podSelector),
        `${policy.metadata.name} selects its pods`,
      ).not.toEqual([]);
  });

  it('keeps secret values out of the manifests', () => {
    for (const secret of objects().filter((o) => o.kind === 'Secret')) {
      for (const [key, value] of Object.entries((secret.data as Record<string, string>) ?? {})) {
        expect(
          realLookingSecret(
            `${secret.metadata.name}.${key}`,
            Buffer.from(value.replace(/\n/g, ''), 'base64').toString(),
          ),
        ).toBeUndefined();
      }
    }
    // The keys for access tokens are never in a manifest: dev generates them in the cluster, prod brings its own.
    expect(objects().some((o) => o.kind === 'Secret' && o.metadata.name.startsWith('omc-jwt'))).toBe(false);
  });

  it('gives each service that uses Redis a Redis URL of its own (its own user), and payments none', () => {
    // The gateway's request budget may also live on a Redis of its own: each counted request is a
    // script call, which on the round's Redis doubled Redis's CPU per click.
    const redisKey = (deployment: string) =>
      podOf(find(objects(), 'Deployment', deployment))
        .containers[0]!.env!.filter((e) => e.name === 'REDIS_URL')
        .map((e) => e.valueFrom!.secretKeyRef!.key);
    for (const name of ['auth', 'game', 'realtime', 'gateway'])
      expect(redisKey(name), name).toEqual([`${name.toUpperCase()}_REDIS_URL`]);
    expect(redisKey('payments')).toEqual([]);
  });

  it('configures payments for the emulators in dev and the real providers in prod', () => {
    const settings = (name: string) =>
      objects().find((o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith(`${name}-`))!.data as Record<
        string,
        string
      >;
    const payments = settings('omc-payments');
    if (overlay === 'dev') {
      expect(payments.BRAINTREE_EMULATOR_URL).toBe('http://emulators:3100');
      expect(payments.PAYPAL_API_URL).toBe('http://emulators:3100');
    } else {
      expect(payments.BRAINTREE_EMULATOR_URL).toBeUndefined();
      expect(payments.PAYPAL_API_URL).toMatch(/^https:\/\//);
    }
    // The wiring names Services that exist, on their ports.
    const wiring = settings('omc-settings');
    for (const key of ['AUTH_URL', 'GAME_URL', 'PAYMENTS_URL', 'REALTIME_URLS']) {
      const url = new URL(wiring[key]!);
      const service = find(objects(), 'Service', url.hostname);
      expect((service.spec as { ports: { port: number }[] }).ports[0]!.port).toBe(Number(url.port));
    }
  });
});

describe('dev and prod differ where they should', () => {
  it('dev runs PostgreSQL, Redis and NATS with JetStream in the cluster, with storage', () => {
    const sets = rendered.dev.filter((o) => o.kind === 'StatefulSet');
    expect(sets.map((s) => s.metadata.name).sort()).toEqual(['nats', 'postgres', 'redis']);
    for (const s of sets)
      expect((s.spec as { volumeClaimTemplates: unknown[] }).volumeClaimTemplates).toHaveLength(1);
    // JetStream and its store come from nats.conf (the nats-config ConfigMap, docker/nats/nats.conf).
    expect(podOf(find(rendered.dev, 'StatefulSet', 'nats')).containers[0]!.args).toEqual([
      'nats-server',
      '--config',
      '/etc/nats/nats.conf',
    ]);
    // The pause process is PID 1 and reaps orphans, not the postmaster (which would restart on one).
    expect(podOf(find(rendered.dev, 'StatefulSet', 'postgres')).shareProcessNamespace).toBe(true);
    expect(podOf(find(rendered.dev, 'StatefulSet', 'redis')).containers[0]!.args).toEqual(
      expect.arrayContaining(['--appendonly', 'yes']),
    );
    // One ACL user per service, as REDIS_USERS defines them, passwords from the Secret; the default user
    // may only PING.
    const redis = podOf(find(rendered.dev, 'StatefulSet', 'redis')).containers[0]!;
    const users = redisUserArgs((n) => `$(${redisPasswordVariable(n)})`, '$(REDIS_ADMIN_PASSWORD)');
    expect(redis.args!.slice(redis.args!.indexOf('--user'))).toEqual(users);
    expect(users.slice(0, 6)).toEqual(['--user', 'default', 'reset', 'on', 'nopass', '+ping']);
    const secret = rendered.dev.find(
      (o) => o.kind === 'Secret' && o.metadata.name.startsWith('omc-datastores'),
    )!;
    const secretKeys = Object.keys(secret.data as Record<string, string>);
    for (const name of ['auth', 'game', 'realtime', 'gateway'] as const) {
      const variable = redisPasswordVariable(name);
      expect(redis.env!.find((e) => e.name === variable)?.valueFrom?.secretKeyRef?.key, variable).toBe(
        variable,
      );
      expect(secretKeys).toContain(variable);
      const url = Buffer.from(
        (secret.data as Record<string, string>)[`${name.toUpperCase()}_REDIS_URL`]!,
        'base64',
      ).toString();
      const password = Buffer.from((secret.data as Record<string, string>)[variable]!, 'base64').toString();
      expect(url).toBe(`redis://${name}:${password}@redis:6379`);
    }
    expect(secretKeys).not.toContain('REDIS_URL');
    const init = rendered.dev.find(
      (o) => o.kind === 'ConfigMap' && o.metadata.name.startsWith('postgres-init-'),
    )!.data as Record<string, string>;
    for (const d of DEPLOYABLES.filter((x) => x.database))
      expect(init['init.sql']).toContain(`CREATE DATABASE ${d.database};`);
  });

  it('dev generates the JWT keys in the cluster with a Job allowed only to create Secrets', () => {
    const job = find(rendered.dev, 'Job', 'jwt-keys');
    expect(podOf(job).containers[0]!.command!.join('\n')).toContain("generateKeyPairSync('ed25519')");
    const role = find(rendered.dev, 'Role', 'jwt-keys');
    expect(role.rules).toEqual([{ apiGroups: [''], resources: ['secrets'], verbs: ['create'] }]);
  });

  it('dev runs a mail catcher that auth sends account mail to, so accounts can be verified there', () => {
    const catcher = podOf(find(rendered.dev, 'Deployment', 'mailcatcher')).containers[0]!;
    expect(catcher.image).toMatch(/^maildev\/maildev:/);
    const ports = (
      find(rendered.dev, 'Service', 'mailcatcher').spec as { ports: { name: string; port: number }[] }
    ).ports;
    expect(ports.map((p) => [p.name, p.port])).toEqual([
      ['smtp', 1025],
      ['web', 1080],
    ]);
    // auth reads SMTP_URL from the omc-mail Secret; dev generates it pointing at the catcher.
    const mail = rendered.dev.find((o) => o.kind === 'Secret' && o.metadata.name.startsWith('omc-mail-'))!;
    expect(Buffer.from((mail.data as Record<string, string>).SMTP_URL!, 'base64').toString()).toBe(
      'smtp://mailcatcher:1025',
    );
    const smtpUrl = podOf(find(rendered.dev, 'Deployment', 'auth')).containers[0]!.env!.find(
      (e) => e.name === 'SMTP_URL',
    )!;
    expect(smtpUrl.valueFrom!.secretKeyRef!.name).toBe(mail.metadata.name);
    // Only auth reaches its SMTP port; nothing in the namespace reaches its web inbox (port-forward it).
    const policies = rendered.dev.filter((o) => o.kind === 'NetworkPolicy');
    const nsLabels = { 'kubernetes.io/metadata.name': 'omc-dev' };
    const pod = (kind: string, name: string): Endpoint => ({
      labels: templateLabels(find(rendered.dev, kind, name)),
      namespaceLabels: nsLabels,
    });
    const to = pod('Deployment', 'mailcatcher');
    expect(allowed(policies, nsLabels, pod('Deployment', 'auth'), to, 1025)).toBe(true);
    for (const other of ['gateway', 'game', 'payments', 'realtime'])
      expect(allowed(policies, nsLabels, pod('Deployment', other), to, 1025), other).toBe(false);
    expect(allowed(policies, nsLabels, pod('Deployment', 'gateway'), to, 1080)).toBe(false);
    expect(rendered.prod.filter((o) => o.metadata.name.includes('mailcatcher'))).toEqual([]);
  });

  it('prod has no in-cluster servers, no emulators, no generated secrets, and more replicas', () => {
    expect(rendered.prod.filter((o) => o.kind === 'StatefulSet')).toEqual([]);
    expect(
      rendered.prod.filter((o) => o.metadata.name.includes('emulators') || o.metadata.name === 'jwt-keys'),
    ).toEqual([]);
    expect(rendered.prod.filter((o) => o.kind === 'Secret')).toEqual([]);
    for (const name of ['auth', 'payments']) {
      const replicas = (overlay: Overlay) =>
        (find(rendered[overlay], 'Deployment', name).spec as { replicas: number }).replicas;
      expect(replicas('prod')).toBeGreaterThan(replicas('dev'));
    }
    for (const name of ['game', 'gateway', 'realtime']) {
      const min = (overlay: Overlay) =>
        (find(rendered[overlay], 'HorizontalPodAutoscaler', name).spec as { minReplicas: number })
          .minReplicas;
      expect(min('prod')).toBeGreaterThan(min('dev'));
    }
  });

  it('prod lists the Secrets it needs with placeholders only, outside the kustomization', () => {
    const examples = writtenObjects().filter(
      ({ file }) => file === join('overlays', 'prod', 'secrets.example.yaml'),
    );
    expect(examples.map(({ object }) => object.metadata.name).sort()).toEqual([
      'omc-bootstrap-admin',
      'omc-datastores',
      'omc-jwt',
      'omc-mail',
      'omc-providers',
      'omc-service-keys',
    ]);
    for (const { object } of examples) {
      for (const [key, value] of Object.entries(object.stringData as Record<string, string>))
        expect(realLookingSecret(key, value), key).toBeUndefined();
    }
    // Every Secret key the workloads read is in the examples.
    const exampleKeys = new Set(
      examples.flatMap(({ object }) =>
        Object.keys(object.stringData as object).map((k) => `${object.metadata.name}/${k}`),
      ),
    );
    for (const spec of podSpecs(rendered.prod) as PodSpec[]) {
      for (const e of spec.containers.flatMap((c) => c.env ?? [])) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref) expect(exampleKeys.has(`${ref.name}/${ref.key}`), `${ref.name}/${ref.key}`).toBe(true);
      }
    }
  });
});
