// Renders a kustomization: with `kubectl kustomize` where kubectl exists (it needs no cluster), else with
// the small renderer below, which implements the part of kustomize that k8s/ uses: resources (files and
// folders), namespace, configMapGenerator/secretGenerator (literals, files, envs; create, merge, replace;
// hash suffixes and the references to them), images, replicas, and patches (strategic merge or JSON 6902,
// with or without a target). Anything else in a kustomization makes it fail loudly, never render wrong.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isK8sObject, loadAllYaml, loadYaml, parseYamlDocuments, type K8sObject } from './yaml.js';

export type Renderer = 'kubectl' | 'builtin';

export function kubectlAvailable(): boolean {
  return spawnSync('kubectl', ['version', '--client'], { encoding: 'utf8' }).status === 0;
}

export function renderWithKubectl(dir: string): K8sObject[] {
  const result = spawnSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`kubectl kustomize ${dir} failed:\n${result.stderr}`);
  return parseYamlDocuments(result.stdout, `kubectl kustomize ${dir}`).filter(isK8sObject);
}

export function render(dir: string): { renderer: Renderer; objects: K8sObject[] } {
  if (kubectlAvailable()) return { renderer: 'kubectl', objects: renderWithKubectl(dir) };
  return { renderer: 'builtin', objects: renderBuiltin(dir) };
}

// ---------------------------------------------------------------------------------------------------

interface Kustomization {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  resources?: string[];
  configMapGenerator?: Generator[];
  secretGenerator?: Generator[];
  images?: { name: string; newName?: string; newTag?: string; digest?: string }[];
  replicas?: { name: string; count: number }[];
  patches?: { path?: string; patch?: string; target?: Target }[];
}

interface Generator {
  name: string;
  behavior?: 'create' | 'merge' | 'replace';
  type?: string;
  literals?: string[];
  files?: string[];
  envs?: string[];
}

interface Target {
  group?: string;
  version?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  labelSelector?: string;
}

const SUPPORTED = new Set([
  'apiVersion',
  'kind',
  'namespace',
  'resources',
  'configMapGenerator',
  'secretGenerator',
  'images',
  'replicas',
  'patches',
]);

/** Objects made by a generator keep the name they were declared with until the hash is added. */
const GENERATED = Symbol('generated');
type Generated = K8sObject & { [GENERATED]?: string };

const CLUSTER_SCOPED = new Set([
  'Namespace',
  'ClusterRole',
  'ClusterRoleBinding',
  'PersistentVolume',
  'StorageClass',
  'CustomResourceDefinition',
  'PriorityClass',
  'IngressClass',
  'ValidatingWebhookConfiguration',
  'MutatingWebhookConfiguration',
  'APIService',
  'RuntimeClass',
]);

export function renderBuiltin(dir: string): K8sObject[] {
  const objects = build(resolve(dir));
  finishGenerated(objects);
  return objects.map((o) => {
    const copy = { ...o } as Generated;
    delete copy[GENERATED];
    return copy;
  });
}

function build(dir: string): Generated[] {
  const file = ['kustomization.yaml', 'kustomization.yml', 'Kustomization']
    .map((f) => join(dir, f))
    .find((f) => existsSync(f));
  if (!file) throw new Error(`no kustomization in ${dir}`);
  const k = loadYaml<Kustomization>(file);
  const unsupported = Object.keys(k).filter((key) => !SUPPORTED.has(key));
  if (unsupported.length > 0)
    throw new Error(
      `${file}: the built-in renderer does not implement ${unsupported.join(', ')}; install kubectl`,
    );

  let objects: Generated[] = [];
  for (const entry of k.resources ?? []) {
    const path = join(dir, entry);
    if (!existsSync(path)) throw new Error(`${file}: resource ${entry} does not exist`);
    if (statSync(path).isDirectory()) objects.push(...build(path));
    else objects.push(...(loadAllYaml(path).filter(isK8sObject) as Generated[]));
  }
  objects = structuredCloneAll(objects);

  for (const g of k.configMapGenerator ?? []) applyGenerator(objects, dir, g, 'ConfigMap');
  for (const g of k.secretGenerator ?? []) applyGenerator(objects, dir, g, 'Secret');

  for (const p of k.patches ?? []) {
    const text = p.path ? readFileSync(join(dir, p.path), 'utf8') : p.patch;
    if (!text) throw new Error(`${file}: a patch needs path or patch`);
    const documents = parseYamlDocuments(text, p.path ?? 'inline patch');
    for (const document of documents) {
      if (Array.isArray(document)) {
        if (!p.target) throw new Error(`${file}: a JSON 6902 patch needs a target`);
        const targets = objects.filter((o) => matches(o, p.target!));
        if (targets.length === 0)
          throw new Error(`${file}: patch target ${JSON.stringify(p.target)} matches nothing`);
        for (const o of targets) jsonPatch(o, document as JsonOp[]);
      } else {
        const patch = document as K8sObject;
        const targets = p.target
          ? objects.filter((o) => matches(o, p.target!))
          : objects.filter((o) => o.kind === patch.kind && o.metadata.name === patch.metadata?.name);
        if (targets.length === 0) throw new Error(`${file}: patch ${p.path ?? ''} matches nothing`);
        for (const o of targets) {
          const { metadata, ...rest } = patch;
          const merged = strategicMerge(
            o,
            p.target ? { ...rest, metadata: { ...metadata, name: o.metadata.name } } : patch,
          ) as Generated;
          Object.assign(o, merged);
        }
      }
    }
  }

  if (k.namespace) {
    for (const o of objects) {
      if (!CLUSTER_SCOPED.has(o.kind)) o.metadata.namespace = k.namespace;
      if (o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding') {
        for (const s of (o.subjects as { kind: string; namespace?: string }[] | undefined) ?? [])
          if (s.kind === 'ServiceAccount') s.namespace = k.namespace;
      }
    }
  }

  for (const image of k.images ?? []) {
    for (const container of podSpecs(objects).flatMap((s) => [
      ...((s.containers as Container[]) ?? []),
      ...((s.initContainers as Container[]) ?? []),
    ])) {
      const parsed = parseImage(container.image);
      if (parsed.name !== image.name) continue;
      const name = image.newName ?? parsed.name;
      const tag = image.newTag ?? parsed.tag;
      const digest = image.digest ?? parsed.digest;
      container.image = digest ? `${name}@${digest}` : tag ? `${name}:${tag}` : name;
    }
  }

  for (const r of k.replicas ?? []) {
    const found = objects.filter(
      (o) => ['Deployment', 'StatefulSet', 'ReplicaSet'].includes(o.kind) && o.metadata.name === r.name,
    );
    if (found.length === 0) throw new Error(`${file}: replicas for ${r.name} match nothing`);
    for (const o of found) (o.spec as { replicas?: number }).replicas = r.count;
  }
  return objects;
}

function structuredCloneAll(objects: Generated[]): Generated[] {
  return objects.map((o) => {
    const copy = structuredClone(o) as Generated;
    if (o[GENERATED]) copy[GENERATED] = o[GENERATED];
    return copy;
  });
}

// --- generators -------------------------------------------------------------------------------------

function readGeneratorData(dir: string, g: Generator): Record<string, string> {
  const data: Record<string, string> = {};
  for (const envFile of g.envs ?? []) {
    for (const line of readFileSync(join(dir, envFile), 'utf8').split('\n')) {
      const trimmed = line.trim();
      if (!trimmed || trimmed.startsWith('#')) continue;
      const at = trimmed.indexOf('=');
      data[trimmed.slice(0, at)] = trimmed.slice(at + 1);
    }
  }
  for (const literal of g.literals ?? []) {
    const at = literal.indexOf('=');
    if (at < 1) throw new Error(`generator ${g.name}: literal "${literal}" is not KEY=VALUE`);
    let value = literal.slice(at + 1);
    if (
      value.length >= 2 &&
      ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))
    )
      value = value.slice(1, -1);
    data[literal.slice(0, at)] = value;
  }
  for (const entry of g.files ?? []) {
    const at = entry.indexOf('=');
    const [key, path] = at > 0 ? [entry.slice(0, at), entry.slice(at + 1)] : [entry.split('/').pop()!, entry];
    data[key] = readFileSync(join(dir, path), 'utf8');
  }
  return data;
}

function applyGenerator(objects: Generated[], dir: string, g: Generator, kind: 'ConfigMap' | 'Secret'): void {
  const data = readGeneratorData(dir, g);
  const existing = objects.find((o) => o.kind === kind && o[GENERATED] === g.name);
  const behavior = g.behavior ?? 'create';
  const encode = (d: Record<string, string>) =>
    kind === 'Secret' ? Object.fromEntries(Object.entries(d).map(([k, v]) => [k, base64Lines(v)])) : d;
  if (behavior === 'create') {
    if (existing)
      throw new Error(`generator ${kind} ${g.name} exists already: use behavior merge or replace`);
    const object: Generated = { apiVersion: 'v1', kind, metadata: { name: g.name }, data: encode(data) };
    if (kind === 'Secret') object.type = g.type ?? 'Opaque';
    object[GENERATED] = g.name;
    objects.push(object);
    return;
  }
  if (!existing)
    throw new Error(`generator ${kind} ${g.name} with behavior ${behavior} has nothing to ${behavior}`);
  existing.data =
    behavior === 'merge' ? { ...(existing.data as Record<string, string>), ...encode(data) } : encode(data);
}

/** Secret data as kustomize writes it: base64 in lines of 70 characters when longer than one line. */
function base64Lines(value: string): string {
  const encoded = Buffer.from(value).toString('base64');
  return encoded.length <= 70 ? encoded : `${encoded.match(/.{1,70}/g)!.join('\n')}\n`;
}

/** Go's encoding/json escapes these; kustomize hashes Go's encoding. */
function goJson(value: unknown): string {
  return JSON.stringify(sortKeys(value)).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, sortKeys((value as Record<string, unknown>)[k])]),
    );
  return value;
}

/** kustomize 5 hashes the generated object's kind, type and data, with an empty name. */
export function kustomizeHash(object: K8sObject): string {
  // Secrets are hashed as written, base64 lines included.
  const data = (object.data as Record<string, string> | undefined) ?? {};
  const name = '';
  const encoded =
    object.kind === 'Secret'
      ? { kind: 'Secret', type: object.type ?? 'Opaque', name, data }
      : { kind: 'ConfigMap', name, data };
  const hex = createHash('sha256').update(goJson(encoded)).digest('hex');
  const swap: Record<string, string> = { '0': 'g', '1': 'h', '3': 'k', a: 'm', e: 't' };
  return [...hex.slice(0, 10)].map((c) => swap[c] ?? c).join('');
}

function finishGenerated(objects: Generated[]): void {
  const renames = new Map<string, string>();
  for (const o of objects) {
    const original = o[GENERATED];
    if (!original) continue;
    o.metadata.name = `${original}-${kustomizeHash(o)}`;
    renames.set(`${o.kind}/${original}`, o.metadata.name);
  }
  const rename = (kind: 'ConfigMap' | 'Secret', name: string | undefined) =>
    name ? (renames.get(`${kind}/${name}`) ?? name) : name;
  for (const spec of podSpecs(objects)) {
    for (const c of [
      ...((spec.containers as Container[]) ?? []),
      ...((spec.initContainers as Container[]) ?? []),
    ]) {
      for (const from of c.envFrom ?? []) {
        if (from.configMapRef) from.configMapRef.name = rename('ConfigMap', from.configMapRef.name);
        if (from.secretRef) from.secretRef.name = rename('Secret', from.secretRef.name);
      }
      for (const e of c.env ?? []) {
        if (e.valueFrom?.configMapKeyRef)
          e.valueFrom.configMapKeyRef.name = rename('ConfigMap', e.valueFrom.configMapKeyRef.name);
        if (e.valueFrom?.secretKeyRef)
          e.valueFrom.secretKeyRef.name = rename('Secret', e.valueFrom.secretKeyRef.name);
      }
    }
    for (const v of (spec.volumes as Volume[]) ?? []) {
      if (v.configMap) v.configMap.name = rename('ConfigMap', v.configMap.name);
      if (v.secret) v.secret.secretName = rename('Secret', v.secret.secretName);
      for (const s of v.projected?.sources ?? []) {
        if (s.configMap) s.configMap.name = rename('ConfigMap', s.configMap.name);
        if (s.secret) s.secret.name = rename('Secret', s.secret.name);
      }
    }
  }
}

// --- pod specs and images ---------------------------------------------------------------------------

interface Ref {
  name?: string;
}
interface Container {
  name: string;
  image: string;
  envFrom?: { configMapRef?: Ref; secretRef?: Ref }[];
  env?: { name: string; valueFrom?: { configMapKeyRef?: Ref; secretKeyRef?: Ref } }[];
}
interface Volume {
  configMap?: Ref;
  secret?: { secretName?: string };
  projected?: { sources?: { configMap?: Ref; secret?: Ref }[] };
}

export function podSpecs(objects: K8sObject[]): Record<string, unknown>[] {
  const specs: Record<string, unknown>[] = [];
  for (const o of objects) {
    const spec = o.spec as Record<string, any> | undefined;
    if (!spec) continue;
    if (o.kind === 'Pod') specs.push(spec);
    else if (o.kind === 'CronJob') {
      if (spec.jobTemplate?.spec?.template?.spec) specs.push(spec.jobTemplate.spec.template.spec);
    } else if (spec.template?.spec) specs.push(spec.template.spec);
  }
  return specs;
}

export function parseImage(image: string): { name: string; tag?: string; digest?: string } {
  const [withoutDigest, digest] = image.split('@') as [string, string | undefined];
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  if (colon > slash)
    return {
      name: withoutDigest.slice(0, colon),
      tag: withoutDigest.slice(colon + 1),
      ...(digest ? { digest } : {}),
    };
  return { name: withoutDigest, ...(digest ? { digest } : {}) };
}

// --- patches ----------------------------------------------------------------------------------------

function matches(o: K8sObject, t: Target): boolean {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
  if (t.kind && !new RegExp(`^(?:${t.kind})$`).test(o.kind)) return false;
  if (t.name && !new RegExp(`^(?:${t.name})$`).test(o.metadata.name)) return false;
  if (t.group !== undefined && t.group !== group) return false;
  if (t.version && t.version !== version) return false;
  if (t.namespace && t.namespace !== o.metadata.namespace) return false;
  if (t.labelSelector && !selects(t.labelSelector, o.metadata.labels ?? {})) return false;
  return true;
}

/** Label selectors as kubectl writes them: `a=b`, `a!=b`, `a in (x,y)`, `a notin (x,y)`, `a`, `!a`, comma-separated. */
export function selects(selector: string, labels: Record<string, string>): boolean {
  const terms = selector.match(/[^,(]+(\([^)]*\))?/g) ?? [];
  return terms.every((raw) => {
    const term = raw.trim();
    let m: RegExpMatchArray | null;
    if ((m = term.match(/^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/))) {
      const values = m[3]!.split(',').map((v) => v.trim());
      const has = m[1]! in labels && values.includes(labels[m[1]!]!);
      return m[2] === 'in' ? has : !has;
    }
    if ((m = term.match(/^([^!=]+)!=(.*)$/))) return labels[m[1]!.trim()] !== m[2]!.trim();
    if ((m = term.match(/^([^!=]+)==?(.*)$/))) return labels[m[1]!.trim()] === m[2]!.trim();
    if (term.startsWith('!')) return !(term.slice(1) in labels);
    return term in labels;
  });
}

interface JsonOp {
  op: 'add' | 'replace' | 'remove';
  path: string;
  value?: unknown;
}

function jsonPatch(target: Record<string, unknown>, ops: JsonOp[]): void {
  for (const op of ops) {
    const parts = op.path
      .split('/')
      .slice(1)
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = parts.pop();
    if (last === undefined) throw new Error(`JSON patch path ${op.path} is empty`);
    let parent: any = target;
    for (const part of parts) {
      if (parent[part] === undefined) throw new Error(`JSON patch path ${op.path}: ${part} does not exist`);
      parent = parent[part];
    }
    const value = structuredClone(op.value);
    if (Array.isArray(parent)) {
      const index = last === '-' ? parent.length : Number(last);
      if (op.op === 'add') parent.splice(index, 0, value);
      else if (op.op === 'replace') parent[index] = value;
      else parent.splice(index, 1);
    } else if (op.op === 'remove') {
      delete parent[last];
    } else {
      if (op.op === 'replace' && !(last in parent))
        throw new Error(`JSON patch replace ${op.path}: nothing to replace`);
      parent[last] = value;
    }
  }
}

/** Merge keys of the lists that k8s/ patches (the API's patchMergeKey); other lists are replaced. */
const MERGE_KEYS: Record<string, string> = {
  containers: 'name',
  initContainers: 'name',
  volumes: 'name',
  env: 'name',
  volumeMounts: 'mountPath',
  ports: 'containerPort',
  topologySpreadConstraints: 'topologyKey',
  imagePullSecrets: 'name',
};

export function strategicMerge(base: unknown, patch: unknown, key?: string): unknown {
  if (patch === null) return undefined;
  if (Array.isArray(patch)) {
    const mergeKey = key ? MERGE_KEYS[key] : undefined;
    if (!mergeKey || !Array.isArray(base)) return structuredClone(patch);
    const result = structuredClone(base) as Record<string, unknown>[];
    for (const item of patch as Record<string, unknown>[]) {
      const at = result.findIndex((r) => r[mergeKey] === item[mergeKey]);
      if (item.$patch === 'delete') {
        if (at >= 0) result.splice(at, 1);
      } else if (at >= 0) result[at] = strategicMerge(result[at], item) as Record<string, unknown>;
      else result.push(structuredClone(item));
    }
    return result;
  }
  if (patch && typeof patch === 'object') {
    if (!base || typeof base !== 'object' || Array.isArray(base)) return structuredClone(patch);
    const result: Record<string, unknown> = { ...(base as Record<string, unknown>) };
    for (const [k, v] of Object.entries(patch)) {
      const merged = strategicMerge(result[k], v, k);
      if (merged === undefined) delete result[k];
      else result[k] = merged;
    }
    return result;
  }
  return patch;
}
