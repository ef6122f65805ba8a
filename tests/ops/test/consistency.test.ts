// docker compose and Kubernetes run the same system: every deployable on the same port, with the same
// configuration names, as packages/infra's DEPLOYABLES (what `npm start` runs) says.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCompose } from '../src/compose.js';
import { render } from '../src/kustomize.js';
import { DEPLOYABLES, K8S } from '../src/repo.js';
import type { K8sObject } from '../src/yaml.js';

let dev: K8sObject[] = [];
beforeAll(() => {
  dev = render(join(K8S, 'overlays', 'dev')).objects;
});

type Container = {
  ports: { containerPort: number }[];
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string } }[];
};

function k8sContainer(name: string): Container {
  const deployment = dev.find((o) => o.kind === 'Deployment' && o.metadata.name === name);
  if (!deployment) throw new Error(`k8s dev overlay has no Deployment ${name}`);
  return (deployment.spec as { template: { spec: { containers: Container[] } } }).template.spec
    .containers[0]!;
}

/** The names of the variables a deployable gets in Kubernetes: its env and the ConfigMaps it loads. */
function k8sVariables(name: string): Set<string> {
  const container = k8sContainer(name);
  const names = new Set((container.env ?? []).map((e) => e.name));
  for (const from of container.envFrom ?? []) {
    const map = dev.find((o) => o.kind === 'ConfigMap' && o.metadata.name === from.configMapRef?.name);
    for (const key of Object.keys((map?.data as object) ?? {})) names.add(key);
  }
  return names;
}

/** The names of the variables a deployable gets from docker compose (NAME_FILE counts as NAME). */
function composeVariables(name: string): Set<string> {
  const service = readCompose().services[name]!;
  return new Set(Object.keys(service.environment ?? {}).map((k) => k.replace(/_FILE$/, '')));
}

// Kubernetes gives some names that compose leaves to their defaults: the pod's name, the metrics port
// (compose serves /metrics on the main port), the proxy in front of the gateway, plain-HTTP cookies (set per service in compose), provider settings and credentials (none in
// compose; the gateway loads payments' ConfigMap for the emulator's address).
const K8S_ONLY = new Set([
  'INSTANCE_NAME',
  'METRICS_PORT',
  'TRUST_PROXY',
  'COOKIE_SECURE',
  'BRAINTREE_ENVIRONMENT',
  'PAYPAL_API_URL',
  'BRAINTREE_MERCHANT_ID',
  'BRAINTREE_PUBLIC_KEY',
  'BRAINTREE_PRIVATE_KEY',
  'PAYPAL_CLIENT_ID',
  'PAYPAL_CLIENT_SECRET',
]);

describe.each(DEPLOYABLES.map((d) => [d.name, d] as const))('%s', (name, d) => {
  it('listens on the same port in npm start, compose and Kubernetes', () => {
    const compose = readCompose().services[name]!;
    expect(String(compose.environment!.PORT)).toBe(String(d.defaultPort));
    const container = k8sContainer(name);
    expect(container.ports.map((p) => p.containerPort)).toEqual(
      [d.defaultPort, d.internalPort, d.callsPort, d.metricsPort].filter((p) => p !== undefined),
    );
    // The game's listener for auth's calls.
    if (d.callsPort) {
      expect(String(compose.environment!.INTERNAL_PORT)).toBe(String(d.callsPort));
      expect(container.env!.find((e) => e.name === 'INTERNAL_PORT')!.value).toBe(String(d.callsPort));
    }
    expect(container.env!.find((e) => e.name === 'PORT')!.value).toBe(String(d.defaultPort));
    // The gateway's internal listener (health, readiness, metrics) too.
    if (d.internalPort) {
      expect(String(compose.environment!.GATEWAY_INTERNAL_PORT)).toBe(String(d.internalPort));
      expect(container.env!.find((e) => e.name === 'GATEWAY_INTERNAL_PORT')!.value).toBe(
        String(d.internalPort),
      );
    }
  });

  it('gets the same configuration names from compose and Kubernetes', () => {
    const fromCompose = composeVariables(name);
    const fromK8s = k8sVariables(name);
    expect(
      [...fromCompose].filter((v) => !fromK8s.has(v)),
      'in compose only',
    ).toEqual([]);
    expect(
      [...fromK8s].filter((v) => !fromCompose.has(v) && !K8S_ONLY.has(v)),
      'in Kubernetes only',
    ).toEqual([]);
  });
});
