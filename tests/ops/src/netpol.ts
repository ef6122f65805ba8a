// NetworkPolicy semantics for pods in one namespace, enough to answer "may pod A open a connection to
// pod B on port P?": with default-deny in both directions, B must admit A (an ingress rule of a policy
// selecting B) and A must be let out to B (an egress rule of a policy selecting A). An ipBlock peer is
// taken to mean addresses outside the cluster, never a pod.
import type { K8sObject } from './yaml.js';

type Labels = Record<string, string>;
interface Selector {
  matchLabels?: Labels;
  matchExpressions?: {
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    values?: string[];
  }[];
}
interface Peer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
  ipBlock?: { cidr: string; except?: string[] };
}
interface Rule {
  from?: Peer[];
  to?: Peer[];
  ports?: { port?: number | string; protocol?: string }[];
}
interface PolicySpec {
  podSelector: Selector;
  policyTypes?: ('Ingress' | 'Egress')[];
  ingress?: Rule[];
  egress?: Rule[];
}

export interface Endpoint {
  /** Pod labels; undefined for a peer outside the namespace. */
  labels?: Labels;
  /** The namespace's labels (kubernetes.io/metadata.name at least). */
  namespaceLabels: Labels;
}

export function selectorMatches(selector: Selector | undefined, labels: Labels): boolean {
  if (!selector) return true;
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of selector.matchExpressions ?? []) {
    const has = e.key in labels;
    if (e.operator === 'In' && !(has && e.values!.includes(labels[e.key]!))) return false;
    if (e.operator === 'NotIn' && has && e.values!.includes(labels[e.key]!)) return false;
    if (e.operator === 'Exists' && !has) return false;
    if (e.operator === 'DoesNotExist' && has) return false;
  }
  return true;
}

function peerMatches(peer: Peer, other: Endpoint, policyNamespace: Labels): boolean {
  if (peer.ipBlock) return false;
  if (peer.namespaceSelector) {
    if (!selectorMatches(peer.namespaceSelector, other.namespaceLabels)) return false;
  } else if (
    other.namespaceLabels['kubernetes.io/metadata.name'] !== policyNamespace['kubernetes.io/metadata.name']
  ) {
    return false;
  }
  if (peer.podSelector) return other.labels !== undefined && selectorMatches(peer.podSelector, other.labels);
  return true;
}

function ruleAllows(
  rule: Rule,
  peers: Peer[] | undefined,
  other: Endpoint,
  port: number,
  namespace: Labels,
): boolean {
  const portOk =
    !rule.ports || rule.ports.length === 0 || rule.ports.some((p) => p.port === undefined || p.port === port);
  const peerOk = !peers || peers.length === 0 || peers.some((p) => peerMatches(p, other, namespace));
  return portOk && peerOk;
}

function types(spec: PolicySpec): ('Ingress' | 'Egress')[] {
  return spec.policyTypes ?? (spec.egress ? ['Ingress', 'Egress'] : ['Ingress']);
}

/** Whether `from` may connect to `to` on `port`, both pods in `namespace` unless their labels say otherwise. */
export function allowed(
  policies: K8sObject[],
  namespace: Labels,
  from: Endpoint,
  to: Endpoint,
  port: number,
): boolean {
  const specs = policies.filter((p) => p.kind === 'NetworkPolicy').map((p) => p.spec as PolicySpec);
  const inNamespace = (e: Endpoint) =>
    e.labels !== undefined &&
    e.namespaceLabels['kubernetes.io/metadata.name'] === namespace['kubernetes.io/metadata.name'];

  if (inNamespace(to)) {
    const selecting = specs.filter(
      (s) => types(s).includes('Ingress') && selectorMatches(s.podSelector, to.labels!),
    );
    if (
      selecting.length > 0 &&
      !selecting.some((s) => (s.ingress ?? []).some((r) => ruleAllows(r, r.from, from, port, namespace)))
    )
      return false;
  }
  if (inNamespace(from)) {
    const selecting = specs.filter(
      (s) => types(s).includes('Egress') && selectorMatches(s.podSelector, from.labels!),
    );
    if (
      selecting.length > 0 &&
      !selecting.some((s) => (s.egress ?? []).some((r) => ruleAllows(r, r.to, to, port, namespace)))
    )
      return false;
  }
  return true;
}

/** Whether pods matching `labels` may open connections to addresses outside the cluster on `port`. */
export function externalEgressAllowed(policies: K8sObject[], labels: Labels, port: number): boolean {
  const specs = policies
    .filter((p) => p.kind === 'NetworkPolicy')
    .map((p) => p.spec as PolicySpec)
    .filter((s) => types(s).includes('Egress') && selectorMatches(s.podSelector, labels));
  if (specs.length === 0) return true;
  return specs.some((s) =>
    (s.egress ?? []).some((r) => {
      const portOk =
        !r.ports || r.ports.length === 0 || r.ports.some((p) => p.port === undefined || p.port === port);
      const peerOk = !r.to || r.to.length === 0 || r.to.some((p) => p.ipBlock !== undefined);
      return portOk && peerOk;
    }),
  );
}
