// docs/configuration.md, generated from the configuration schemas of the gateway and every service (their
// src/config.ts, with service-kit's shared settings): each variable with its default, what it accepts,
// and the doc comment written above it in the schema. `pnpm run docs:config` writes it;
// test/config-docs.test.ts fails when it is stale.
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { z } from 'zod';
import { ROOT } from './repo.js';

export const CONFIG_DOC = join(ROOT, 'docs', 'configuration.md');

/** The deployables whose configuration is documented, and where their schema lives. */
export const CONFIGURED = [
  { name: 'gateway', dir: 'gateway' },
  { name: 'auth', dir: 'services/auth' },
  { name: 'game', dir: 'services/game' },
  { name: 'payments', dir: 'services/payments' },
  { name: 'realtime', dir: 'services/realtime' },
] as const;

/** Files whose doc comments describe settings shared through service-kit. */
const SHARED_SOURCES = [
  'packages/service-kit/src/config.ts',
  'packages/service-kit/src/tracing-settings.ts',
  'packages/service-kit/src/retention.ts',
];

export interface Setting {
  name: string;
  default: string;
  accepts: string;
  meaning: string;
}

interface JsonProperty {
  default?: unknown;
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
}

/** `/** text *\/ NAME:` pairs of a source file: the comment written above each setting. */
export function docComments(source: string): Map<string, string> {
  const comments = new Map<string, string>();
  for (const [, body, name] of source.matchAll(/\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*([A-Z][A-Z0-9_]*)\s*:/g)) {
    const text = body!
      .split('\n')
      .map((line) => line.replace(/^\s*\*\s?/, '').trim())
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    comments.set(name!, text);
  }
  return comments;
}

/** The object a service's schema starts from, under its transforms and refinements. */
function objectOf(schema: z.ZodType): z.ZodObject {
  let current = schema as unknown as { _zod: { def: { type: string; in?: unknown } } };
  while (current._zod.def.type === 'pipe') current = current._zod.def.in as typeof current;
  if (current._zod.def.type !== 'object') throw new Error(`not an object schema: ${current._zod.def.type}`);
  return current as unknown as z.ZodObject;
}

/** The default zod fills in for a field (under optional and pipes), or undefined. */
function defaultOf(field: unknown): { value: unknown } | undefined {
  let current = field as {
    _zod: { def: { type: string; defaultValue?: unknown; innerType?: unknown; in?: unknown } };
  };
  for (;;) {
    const def = current._zod.def;
    if (def.type === 'default') return { value: def.defaultValue };
    if (def.type === 'optional' || def.type === 'nullable') current = def.innerType as typeof current;
    else if (def.type === 'pipe') current = def.in as typeof current;
    else return undefined;
  }
}

/** A default as a reader wants it: no path of this checkout, no name of this machine. */
function showDefault(value: unknown): string {
  if (value === undefined) return '';
  let text = Array.isArray(value) ? value.join(',') : String(value);
  if (text === '') return 'empty';
  text = text.split(ROOT.endsWith('/') ? ROOT : `${ROOT}/`).join('');
  text = text.replace(`${hostname()}-${process.pid}`, '<hostname>-<pid>');
  return `\`${text}\``;
}

function showAccepts(p: JsonProperty): string {
  if (p.enum) return p.enum.map((v) => `\`${String(v)}\``).join(', ');
  if (p.type === 'integer' || p.type === 'number') {
    const kind = p.type === 'integer' ? 'integer' : 'number';
    if (p.minimum !== undefined && p.maximum !== undefined && p.maximum < Number.MAX_SAFE_INTEGER)
      return `${kind} ${p.minimum}–${p.maximum}`;
    if (p.minimum !== undefined) return `${kind} ≥ ${p.minimum}`;
    return kind;
  }
  return 'text';
}

/** Every setting of one deployable, in the schema's order. */
export async function settingsOf(dir: string): Promise<Setting[]> {
  const module = (await import(pathToFileURL(join(ROOT, dir, 'src', 'config.ts')).href)) as {
    configSchema: z.ZodType;
  };
  const object = objectOf(module.configSchema);
  const json = z.toJSONSchema(object, { io: 'input', unrepresentable: 'any' }) as {
    properties: Record<string, JsonProperty>;
    required?: string[];
  };
  const comments = new Map<string, string>();
  for (const file of [...SHARED_SOURCES, join(dir, 'src', 'config.ts')])
    for (const [name, text] of docComments(readFileSync(join(ROOT, file), 'utf8'))) comments.set(name, text);
  return Object.entries(json.properties).map(([name, p]) => {
    const fallback = defaultOf(object.shape[name]);
    return {
      name,
      default: fallback
        ? showDefault(fallback.value)
        : (json.required ?? []).includes(name)
          ? '**required**'
          : 'unset',
      accepts: showAccepts(p),
      meaning: comments.get(name) ?? '',
    };
  });
}

/** Settings without a doc comment in their schema, by deployable (the stale test refuses any). */
export async function undocumentedSettings(): Promise<string[]> {
  const missing: string[] = [];
  for (const c of CONFIGURED)
    for (const s of await settingsOf(c.dir)) if (s.meaning === '') missing.push(`${c.name}: ${s.name}`);
  return missing;
}

/**
 * One line per setting: the variable, then each other column by its header, then the meaning. A list, not
 * a table: a table padded to its widest cell triples the page's bytes.
 */
function table(rows: string[][], header: string[]): string {
  return rows
    .map((row) => {
      const labelled = header
        .map((name, i) => ({ name, value: row[i]! }))
        .filter(({ name }) => name !== 'variable' && name !== 'meaning')
        .map(({ name, value }) => `${name} ${value}`);
      const meaning = row[header.indexOf('meaning')] ?? '';
      return `- ${row[0]} (${labelled.join('; ')}): ${meaning}`;
    })
    .join('\n');
}

/** The whole of docs/configuration.md. */
export async function configurationDoc(): Promise<string> {
  const all = await Promise.all(CONFIGURED.map(async (c) => ({ ...c, settings: await settingsOf(c.dir) })));
  // A setting several deployables read with the same default and meaning is listed once.
  const key = (s: Setting) => `${s.name}\u0000${s.default}\u0000${s.accepts}\u0000${s.meaning}`;
  const users = new Map<string, string[]>();
  for (const c of all) for (const s of c.settings) users.set(key(s), [...(users.get(key(s)) ?? []), c.name]);
  const shared = new Map<string, { setting: Setting; by: string[] }>();
  for (const c of all)
    for (const s of c.settings) {
      const by = users.get(key(s))!;
      if (by.length > 1 && !shared.has(key(s))) shared.set(key(s), { setting: s, by });
    }
  const total = new Set(all.flatMap((c) => c.settings.map((s) => s.name))).size;

  const parts = [
    "<!-- Generated by `pnpm run docs:config` from each deployable's src/config.ts; do not edit by hand. -->",
    '',
    '# Configuration',
    '',
    "Every setting is an environment variable, read once at start by the deployable's `src/config.ts` (the only",
    'reader of the environment). Every one has a default that works on a development machine, except the',
    'connection URLs and keys marked **required**. A bad value stops the process at start with a message',
    'naming each bad variable. Docker compose passes these through `docker-compose.yml`; Kubernetes through',
    'the `omc-settings` ConfigMap and the Secrets (docs/operations.md).',
    '',
    `${total} variables across ${all.length} deployables. Each meaning is the comment above the setting`,
    'in its schema: change it there, then run `pnpm run docs:config`.',
    '',
    '## Shared settings',
    '',
    'Read by several deployables with the same default.',
    '',
    table(
      [...shared.values()].map(({ setting: s, by }) => [
        `\`${s.name}\``,
        by.length === all.length ? 'all' : by.join(', '),
        s.default,
        s.accepts,
        s.meaning,
      ]),
      ['variable', 'read by', 'default', 'accepts', 'meaning'],
    ),
  ];
  for (const c of all) {
    const own = c.settings.filter((s) => users.get(key(s))!.length === 1);
    parts.push(
      '',
      `## ${c.name}`,
      '',
      `\`${c.dir}/src/config.ts\`.`,
      '',
      table(
        own.map((s) => [`\`${s.name}\``, s.default, s.accepts, s.meaning]),
        ['variable', 'default', 'accepts', 'meaning'],
      ),
    );
  }
  parts.push(
    '',
    '## `npm start` itself',
    '',
    'Read by `scripts/start.ts` and `packages/infra` (not by a service), for the development system only.',
    '',
    table(
      [
        [
          '`PROMETHEUS`',
          'unset',
          '`1`: also run Prometheus with the alerting rules (as `npm start -- --prometheus`)',
        ],
        ['`SMTP_PORT`', '`1025` when free', "the mail catcher's SMTP port"],
        ['`MAIL_UI_PORT`', '`1080` when free', "the mail catcher's inbox and its HTTP API (`GET /email`)"],
        ['`SMTP_URL`', 'unset', 'set: auth sends to it and no mail catcher runs'],
        ['`OMC_START_DIR`', '`.data/dev`', 'where the servers keep their data'],
        ['`OMC_START_PORTS`', 'unset', '`free`: free ports instead of the default ones'],
      ],
      ['variable', 'default', 'meaning'],
    ),
    '',
    '## Deployment credentials (compose and Kubernetes)',
    '',
    "Read by the servers and written into the services' URLs by `docker-compose.yml` and the Kubernetes",
    'Secret `omc-datastores`, not by a service (docs/operations.md, "Redis users" and "The bus").',
    '',
    table(
      [
        [
          '`REDIS_AUTH_PASSWORD`, `REDIS_GAME_PASSWORD`, `REDIS_REALTIME_PASSWORD`, `REDIS_GATEWAY_PASSWORD`',
          '`dev-only-<service>-redis`',
          "each service's Redis ACL user's password (compose; the dev overlay's Secret)",
        ],
        [
          '`REDIS_ADMIN_PASSWORD`',
          '`dev-only-admin-redis`',
          "the operators' Redis user `admin` (compose; the dev overlay's Secret); no service holds it",
        ],
        [
          '`AUTH_REDIS_URL`, `GAME_REDIS_URL`, `REALTIME_REDIS_URL`, `GATEWAY_REDIS_URL`',
          'unset',
          "each service's `REDIS_URL` in Kubernetes, with its own user",
        ],
        [
          '`NATS_AUTH_PASSWORD`, `NATS_GAME_PASSWORD`, `NATS_PAYMENTS_PASSWORD`, `NATS_REALTIME_PASSWORD`',
          '`dev-only-<service>-nats`',
          "each service's NATS user's password (compose; the dev overlay's Secret)",
        ],
      ],
      ['variable', 'default', 'meaning'],
    ),
  );
  // Formatted as `prettier --write` leaves it, so the format check and this output agree.
  return format(parts.join('\n') + '\n', { ...(await resolveConfig(CONFIG_DOC)), filepath: CONFIG_DOC });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const text = await configurationDoc();
  writeFileSync(CONFIG_DOC, text);
  console.log(`wrote ${relative(process.cwd(), CONFIG_DOC)}`);
}
