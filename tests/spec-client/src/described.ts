// The API description the gateway serves (/api/openapi.json), used as an outsider would use it: every
// answer the journey receives is checked against the schema the document gives for its route and status,
// and every live event against the document's `x-socket-events`. Nothing is imported from the product:
// the document is read over HTTP, and the schemas are checked by Ajv (JSON Schema 2020-12, OpenAPI 3.1's
// dialect).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';

export interface Mismatch {
  what: string;
  problems: string;
}

const DOCUMENT_ID = 'https://omc.invalid/openapi.json';

interface Operation {
  responses: Record<string, { content?: Record<string, unknown> }>;
}

export class DescribedApi {
  readonly mismatches: Mismatch[] = [];
  /** How many answers were checked, per `METHOD template status`. */
  readonly checked = new Map<string, number>();
  private ajv = new Ajv2020({
    strict: false,
    allErrors: true,
    validateFormats: false,
    validateSchema: false,
  });
  private document: { paths: Record<string, Record<string, Operation>>; 'x-socket-events'?: object };
  private validators = new Map<string, ValidateFunction>();
  private templates: { template: string; pattern: RegExp }[];

  constructor(document: any) {
    this.document = document;
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    this.templates = Object.keys(document.paths).map((template) => ({
      template,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }));
  }

  static async load(gatewayUrl: string): Promise<DescribedApi> {
    const response = await fetch(`${gatewayUrl}/api/openapi.json`);
    if (!response.ok) throw new Error(`GET /api/openapi.json answered ${response.status}`);
    return new DescribedApi(await response.json());
  }

  /** The template a concrete path falls under (`/api/user/sessions/{id}`), or undefined if none. */
  templateOf(path: string): string | undefined {
    const bare = path.split('?')[0]!;
    return this.templates.find((t) => t.pattern.test(bare))?.template;
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
      this.validators.set(pointer, validate);
    }
    return validate;
  }

  /** Checks one answer; a mismatch is recorded (and returned) rather than thrown, so a journey runs on. */
  checkAnswer(method: string, path: string, status: number, contentType: string, body: unknown): void {
    const what = `${method} ${path} -> ${status}`;
    const template = this.templateOf(path);
    const operation = template ? this.document.paths[template]?.[method.toLowerCase()] : undefined;
    if (!template || !operation) {
      this.mismatches.push({ what, problems: 'no such operation in the document' });
      return;
    }
    const code = [String(status), `${String(status)[0]}XX`, 'default'].find((c) => operation.responses[c]);
    if (!code) {
      this.mismatches.push({ what, problems: `status ${status} is not described` });
      return;
    }
    const content = operation.responses[code]!.content;
    if (!content) return;
    if (!contentType.includes('application/json') || !content['application/json']) {
      this.mismatches.push({ what, problems: `answered ${contentType || 'no content type'}` });
      return;
    }
    const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
    const pointer = `/paths/${escape(template)}/${method.toLowerCase()}/responses/${code}/content/${escape('application/json')}/schema`;
    const validate = this.validator(pointer);
    const key = `${method} ${template} ${code}`;
    this.checked.set(key, (this.checked.get(key) ?? 0) + 1);
    if (!validate(body)) this.mismatches.push({ what, problems: this.ajv.errorsText(validate.errors) });
  }

  /** Checks one live event's payload against the document's description of it. */
  checkEvent(name: string, payload: unknown): void {
    const events = (this.document['x-socket-events'] ?? {}) as Record<string, unknown>;
    if (!events[name]) {
      this.mismatches.push({ what: `event ${name}`, problems: 'not described' });
      return;
    }
    const validate = this.validator(`/x-socket-events/${name}`);
    const key = `event ${name}`;
    this.checked.set(key, (this.checked.get(key) ?? 0) + 1);
    if (!validate(payload))
      this.mismatches.push({ what: key, problems: this.ajv.errorsText(validate.errors) });
  }
}
