// Kubernetes objects checked against the API's schemas, offline: kubernetes-models' validators (types,
// required fields, formats), plus a strict pass that refuses fields the API does not have, read from the
// same package's type definitions with the TypeScript checker (the validators let unknown fields pass,
// so a misspelt `readOnlyRootFilesystem` would otherwise go unnoticed).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type { K8sObject } from './yaml.js';

const require = createRequire(import.meta.url);
const KINDS_FILE = fileURLToPath(new URL('./k8s-kinds.ts', import.meta.url));

/** kubernetes-models' validation of one object: an empty list when it is valid. */
export function schemaErrors(object: K8sObject): string[] {
  let module: Record<string, unknown>;
  try {
    // The Prometheus Operator's kinds come from the same project's package for its CRDs.
    module = object.apiVersion.startsWith('monitoring.coreos.com/')
      ? require(`@kubernetes-models/prometheus-operator/${object.apiVersion}`)
      : require(`kubernetes-models/${object.apiVersion}`);
  } catch {
    return [`no Kubernetes schema for apiVersion ${object.apiVersion}`];
  }
  const Model = module[object.kind] as (new (data: unknown) => { validate(): void }) | undefined;
  if (!Model) return [`no Kubernetes schema for ${object.apiVersion} ${object.kind}`];
  // kustomize writes long Secret values as base64 broken into lines, which the API server accepts.
  const data =
    object.kind === 'Secret' && object.data
      ? Object.fromEntries(
          Object.entries(object.data as Record<string, string>).map(([k, v]) => [k, v.replace(/\n/g, '')]),
        )
      : undefined;
  try {
    new Model(data ? { ...object, data } : object).validate();
    return [];
  } catch (error) {
    return [(error as Error).message];
  }
}

let checker: { program: ts.Program; kinds: ts.Type } | undefined;

function kindTypes(): { tc: ts.TypeChecker; kinds: ts.Type } {
  if (!checker) {
    const program = ts.createProgram([KINDS_FILE], {
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      target: ts.ScriptTarget.ES2022,
      types: [],
    });
    const tc = program.getTypeChecker();
    const source = program.getSourceFile(KINDS_FILE)!;
    const problems = ts.getPreEmitDiagnostics(program, source);
    if (problems.length > 0)
      throw new Error(
        `k8s-kinds.ts does not compile: ${ts.flattenDiagnosticMessageText(problems[0]!.messageText, '\n')}`,
      );
    const module = tc.getSymbolAtLocation(source);
    const symbol = module && tc.getExportsOfModule(module).find((s) => s.name === 'KindTypes');
    if (!symbol) throw new Error('k8s-kinds.ts has no KindTypes');
    checker = { program, kinds: tc.getDeclaredTypeOfSymbol(symbol) };
  }
  return { tc: checker.program.getTypeChecker(), kinds: checker.kinds };
}

/** Fields of the object that its kind does not have, as paths (`spec.template.spec.containers[0].foo`). */
export function unknownFields(object: K8sObject): string[] {
  const { tc, kinds } = kindTypes();
  const property = tc.getPropertyOfType(kinds, `${object.apiVersion}/${object.kind}`);
  if (!property) return [`${object.apiVersion} ${object.kind} is not listed in tests/ops/src/k8s-kinds.ts`];
  const found: string[] = [];
  walk(tc, object, tc.getTypeOfSymbol(property), '', found);
  return found;
}

function walk(tc: ts.TypeChecker, value: unknown, type: ts.Type, path: string, found: string[]): void {
  if (value === null || typeof value !== 'object') return;
  const shape = withoutNullish(type);
  if (!shape || shape.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown | ts.TypeFlags.NonPrimitive)) return;
  if (Array.isArray(value)) {
    const element = tc.getIndexTypeOfType(shape, ts.IndexKind.Number);
    if (element) value.forEach((item, i) => walk(tc, item, element, `${path}[${i}]`, found));
    return;
  }
  const index = tc.getIndexTypeOfType(shape, ts.IndexKind.String);
  for (const [key, child] of Object.entries(value)) {
    const prop = tc.getPropertyOfType(shape, key);
    const childPath = path ? `${path}.${key}` : key;
    if (prop) walk(tc, child, tc.getTypeOfSymbol(prop), childPath, found);
    else if (index) walk(tc, child, index, childPath, found);
    else found.push(childPath);
  }
}

/** The object type inside `T | undefined`; undefined for unions of several shapes (e.g. int-or-string). */
function withoutNullish(type: ts.Type): ts.Type | undefined {
  if (!type.isUnion()) return type;
  const rest = type.types.filter((t) => !(t.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null)));
  return rest.length === 1 ? rest[0] : undefined;
}

/** Every problem with one object: schema errors and unknown fields. */
export function validateObject(object: K8sObject): string[] {
  return [...schemaErrors(object), ...unknownFields(object).map((p) => `unknown field ${p}`)];
}
