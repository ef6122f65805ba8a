// YAML files as plain objects: every document of a file, with merge keys (`<<: *anchor`) resolved the
// way docker compose and kubectl resolve them.
import { readFileSync } from 'node:fs';
import { parseAllDocuments, parse } from 'yaml';

export type K8sObject = {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: unknown;
};

export function loadYaml<T = unknown>(file: string): T {
  return parse(readFileSync(file, 'utf8'), { merge: true }) as T;
}

export function loadAllYaml(file: string): unknown[] {
  return parseYamlDocuments(readFileSync(file, 'utf8'), file);
}

export function parseYamlDocuments(text: string, source = 'input'): unknown[] {
  const documents = parseAllDocuments(text, { merge: true });
  const list = Array.isArray(documents) ? documents : [documents];
  const values: unknown[] = [];
  for (const document of list) {
    if (document.errors.length > 0)
      throw new Error(`${source}: ${document.errors.map((e) => e.message).join('; ')}`);
    const value = document.toJS();
    if (value !== null && value !== undefined) values.push(value);
  }
  return values;
}

export function isK8sObject(value: unknown): value is K8sObject {
  const v = value as K8sObject | null;
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.apiVersion === 'string' &&
    typeof v.kind === 'string' &&
    typeof v.metadata?.name === 'string'
  );
}

export function objectKey(o: K8sObject): string {
  return `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;
}
