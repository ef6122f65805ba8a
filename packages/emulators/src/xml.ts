// A small XML writer in the shape Braintree's gateway answers with: dashed element names, typed
// scalars (type="integer" | "boolean" | "datetime", nil="true") and typed arrays and collections.
export type XmlValue = string | number | boolean | null | undefined | Date | XmlArray | XmlNode;
export interface XmlNode {
  [key: string]: XmlValue;
}
export interface XmlArray {
  $array: string;
  items: XmlValue[];
  /** "array" (default) or "collection" (Braintree's paged search results). */
  $type?: 'array' | 'collection';
}

const dashed = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1-$2')
    .replace(/_/g, '-')
    .toLowerCase();

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

function isArray(value: XmlValue): value is XmlArray {
  return typeof value === 'object' && value !== null && !(value instanceof Date) && '$array' in value;
}

export function element(name: string, value: XmlValue): string {
  const tag = dashed(name);
  if (value === undefined) return '';
  if (value === null) return `<${tag} nil="true"/>`;
  if (value instanceof Date)
    return `<${tag} type="datetime">${value.toISOString().replace(/\.\d{3}Z$/, 'Z')}</${tag}>`;
  if (typeof value === 'boolean') return `<${tag} type="boolean">${value}</${tag}>`;
  if (typeof value === 'number') return `<${tag} type="integer">${Math.trunc(value)}</${tag}>`;
  if (typeof value === 'string') return `<${tag}>${escape(value)}</${tag}>`;
  if (isArray(value)) {
    const inner = value.items.map((item) => element(value.$array, item)).join('');
    return `<${tag} type="${value.$type ?? 'array'}">${inner}</${tag}>`;
  }
  const inner = Object.entries(value)
    .map(([key, child]) => element(key, child))
    .join('');
  return `<${tag}>${inner}</${tag}>`;
}

export function xmlDocument(root: string, value: XmlValue): string {
  return `<?xml version="1.0" encoding="UTF-8"?>\n${element(root, value)}\n`;
}
