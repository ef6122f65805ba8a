// The API description is generated from the catalogue; these tests keep it complete and lint it with an
// outside linter (Redocly CLI, its strictest built-in rules), so a route or schema it cannot describe
// fails here rather than in an integrator's hands.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import {
  buildAsyncApiDocument,
  buildOpenApiDocument,
  ERROR_CODES,
  ERRORS,
  openApiPath,
  ROUTES,
  SOCKET_EVENTS,
} from '../src/index.js';

const here = dirname(fileURLToPath(import.meta.url));
const packageDir = join(here, '..');
const work = mkdtempSync(join(tmpdir(), 'omc-openapi-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs `redocly lint` on a document, offline, and returns its exit code and output. */
function lint(name: string, document: object, config?: string) {
  const file = join(work, name);
  writeFileSync(file, JSON.stringify(document, null, 2));
  const run = spawnSync(
    join(packageDir, 'node_modules', '.bin', 'redocly'),
    ['lint', file, '--format=stylish', ...(config ? ['--config', config] : [])],
    {
      cwd: work,
      encoding: 'utf8',
      env: {
        ...process.env,
        REDOCLY_TELEMETRY: 'off',
        REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true',
        NO_COLOR: '1',
      },
    },
  );
  return { status: run.status, output: `${run.stdout}\n${run.stderr}` };
}

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument() as { paths: Record<string, Record<string, any>>; openapi: string };

  it('is OpenAPI 3.1 and describes every route of the catalogue, the Braintree webhook included', () => {
    expect(document.openapi).toBe('3.1.0');
    for (const route of ROUTES) {
      const operation = document.paths[openApiPath(route.path)]?.[route.method.toLowerCase()];
      expect(operation, `${route.method} ${route.path}`).toBeDefined();
      for (const status of route.successStatuses ?? [200])
        expect(operation.responses[status].content['application/json'].schema).toBeTypeOf('object');
    }
    const webhook = document.paths['/api/payments/webhooks/braintree']?.post;
    expect(Object.keys(webhook.requestBody.content)).toEqual(['application/x-www-form-urlencoded']);
    expect(webhook.requestBody.content['application/x-www-form-urlencoded'].schema.required).toEqual([
      'bt_signature',
      'bt_payload',
    ]);
  });

  it('describes the error body, the bearer token and the admin refusal on admin routes', () => {
    const users = document.paths['/api/admin/users']!.get;
    expect(users.security).toEqual([{ bearer: [] }]);
    expect(users.responses['403'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ErrorBody',
    });
    expect(document.paths['/api/winners']!.get.parameters.map((p: any) => p.name)).toContain('limit');
    expect(document.paths['/api/user/sessions/{id}']!.delete.parameters[0]).toMatchObject({
      name: 'id',
      in: 'path',
      required: true,
    });
  });

  it('lists every error code of contracts, with its status and message where they are fixed', () => {
    const { schemas } = (document as unknown as { components: { schemas: Record<string, any> } }).components;
    const codes = schemas.ErrorCode;
    expect(codes.enum).toEqual(ERROR_CODES);
    expect(schemas.ErrorBody.properties.code).toEqual({
      $ref: '#/components/schemas/ErrorCode',
    });
    expect(codes.description).toContain(`\`OVERLOADED\` (503): ${ERRORS.OVERLOADED.message}`);
    expect(codes.description).toContain('`ACCOUNT_SUSPENDED`:');
  });

  it("passes Redocly's recommended-strict rules with no error and no warning", () => {
    const result = lint('openapi.json', document, join(packageDir, 'redocly.yaml'));
    expect(result.output).toContain('Your API description is valid');
    expect(result.output).not.toMatch(/You have \d+ (warning|error)/);
    expect(result.status).toBe(0);
  }, 60_000);
});

describe('the AsyncAPI document of the live events', () => {
  it('names every socket event with its payload and lints with no error', () => {
    const document = buildAsyncApiDocument() as { components: { messages: Record<string, any> } };
    expect(Object.keys(document.components.messages).sort()).toEqual(Object.keys(SOCKET_EVENTS).sort());
    expect(document.components.messages.winner.payload.required).toEqual(['username', 'pot']);
    const result = lint('asyncapi.json', document);
    expect(result.output).toContain('Your API description is valid');
    expect(result.status).toBe(0);
  }, 60_000);
});
