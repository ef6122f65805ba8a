// The static checks of scripts/checks, each on planted fixtures: a violation it must find, and a clean
// fixture it must pass. (`npm test` runs each check over the whole tree as well.)
import { describe, expect, it } from 'vitest';
import {
  checkDocs,
  DOCS_BUDGET_BYTES,
  oversized,
  PAGE_BUDGET_BYTES,
  type Tree,
} from '../../../scripts/checks/docs-references.js';
import { findLongFunctions, MAX_FUNCTION_LINES } from '../../../scripts/checks/function-length.js';
import { findCircles } from '../../../scripts/checks/import-circles.js';
import { findHandCalls } from '../../../scripts/checks/internal-calls.js';
import { findViolations } from '../../../scripts/checks/sql-in-repos.js';
import type { WorkspacePackage } from '../../../scripts/checks/workspace-files.js';

const lines = (...text: string[]) => text.join('\n');

describe('sql-in-repos', () => {
  const RAW_FORMS = lines(
    "import { CompiledQuery, sql, sql as q, type Kysely } from 'kysely';", // 1
    'export async function planted(db: Kysely<any>, pool: any) {', // 2
    '  await sql`select 1`.execute(db);', // 3
    '  await sql<{ n: number }>`select count(*) as n from users`.execute(db);', // 4
    '  await sql<{ id: string; name: string }>`', // 5
    '    select id, name from users`.execute(db);', // 6
    "  const name = sql.raw('users');", // 7
    '  const one = sql.lit(1);', // 8
    '  await q`select 2`.execute(db);', // 9
    "  await db.executeQuery(CompiledQuery.raw('select 3'));", // 10
    "  await pool.query('select 1 from pg_database where datname = $1', ['x']);", // 11
    "  await db.selectFrom('users').selectAll().execute();", // 12
    "  await db.schema.createTable('t').execute();", // 13
    "  const statement = 'insert into users (id) values ($1)';", // 14
    "  const read = 'select id from users where name = $1';", // 15
    '  return [name, one, statement, read];', // 16
    '}', // 17
  );

  it('finds every raw form outside a repository, typed sql<T> templates included, one per line', () => {
    const found = findViolations([{ file: 'services/payments/src/ledger/check.ts', text: RAW_FORMS }]);
    expect(found.map((s) => s.line)).toEqual([3, 4, 5, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
    expect(found.find((s) => s.line === 4)?.form).toBe('a typed sql<T> template');
    expect(found.find((s) => s.line === 7)?.form).toBe('sql.raw');
  });

  it('finds a raw query in every scanned part: a service, the gateway, a package', () => {
    for (const file of ['gateway/src/a.ts', 'packages/service-kit/src/a.ts', 'packages/contracts/src/a.ts'])
      expect(findViolations([{ file, text: RAW_FORMS }]).length).toBeGreaterThan(0);
  });

  it('passes SQL in a repository, a migration or a test, and code that only mentions SQL', () => {
    const allowed = [
      'services/payments/src/ledger/check.repo.ts',
      'services/game/src/db/migrations/0001_init.ts',
      'services/game/test/clicks.test.ts',
      'packages/testkit/src/migrations.ts',
    ];
    expect(findViolations(allowed.map((file) => ({ file, text: RAW_FORMS })))).toEqual([]);
    const clean = lines(
      '// a `sql` template and db.query(...) belong in a *.repo.ts file: select id from users where x',
      "export const hint = 'select a pack to buy, from 1 to 100 clicks';",
      "export const url = new URL('https://example.com/?query=1');",
      'export const read = (params: URLSearchParams) => params.get("select");',
    );
    expect(findViolations([{ file: 'services/game/src/hint.ts', text: clean }])).toEqual([]);
  });
});

describe('internal-calls', () => {
  const HAND_MADE = lines(
    "import { INTERNAL_ACCOUNT_PATH, internalRefundPath } from '@omc/contracts';", // 1
    'export async function planted(deps: any, id: string) {', // 2
    "  const headers = deps.credentials.headersFor('auth');", // 3
    '  await fetch(`${deps.authUrl}${INTERNAL_ACCOUNT_PATH}`, { headers });', // 4
    '  await deps.fetch(`${deps.paymentsUrl}${internalRefundPath(id)}`);', // 5
    "  await fetch(deps.gameUrl + '/internal/wins/3');", // 6
    '  await fetch(`${deps.gameUrl}/api/game/profile`);', // 7
    "  // fetch('/internal/commented-out') is not read", // 8
    '}', // 9
  );

  it('finds a credential built by hand and every fetch of an internal route, and nothing else', () => {
    const found = findHandCalls([{ file: 'services/payments/src/users/account-check.ts', text: HAND_MADE }]);
    expect(found.map((c) => [c.line, c.form])).toEqual([
      [3, 'a service credential built by hand'],
      [4, 'an internal route fetched by hand'],
      [5, 'an internal route fetched by hand'],
      [6, 'an internal route fetched by hand'],
    ]);
  });

  it('lets the internal client, the credential module and tests make them', () => {
    for (const file of [
      'packages/service-kit/src/internal-client.ts',
      'packages/service-kit/src/service-credential.ts',
      'services/game/test/takebacks.test.ts',
    ])
      expect(findHandCalls([{ file, text: HAND_MADE }])).toEqual([]);
  });
});

describe('function-length', () => {
  const functionOf = (bodyLines: number) =>
    lines(
      'export function long(): number {',
      '  let n = 0;',
      ...Array(bodyLines - 4).fill('  n++;'),
      '  return n;',
      '}',
    );

  it(`finds a function over ${MAX_FUNCTION_LINES} lines`, () => {
    const found = findLongFunctions([
      { file: 'services/game/src/a.ts', text: functionOf(MAX_FUNCTION_LINES + 1) },
    ]);
    expect(found).toEqual([
      { file: 'services/game/src/a.ts', name: 'long', line: 1, lines: MAX_FUNCTION_LINES + 1 },
    ]);
  });

  it(`passes a function of ${MAX_FUNCTION_LINES} lines, and a long one in a test`, () => {
    expect(
      findLongFunctions([
        { file: 'services/game/src/a.ts', text: functionOf(MAX_FUNCTION_LINES) },
        { file: 'services/game/test/a.test.ts', text: functionOf(MAX_FUNCTION_LINES + 50) },
      ]),
    ).toEqual([]);
  });
});

describe('import-circles', () => {
  const contracts: WorkspacePackage = {
    name: '@omc/contracts',
    dir: 'packages/contracts',
    exports: { '.': './src/index.ts' },
    scripts: {},
  };

  it('finds a circle of relative imports and one through a package export', () => {
    const found = findCircles(
      [
        { file: 'services/game/src/a.ts', text: "import { b } from './b.js';" },
        { file: 'services/game/src/b.ts', text: "import type { A } from './a.js';" },
        { file: 'packages/contracts/src/index.ts', text: "export * from './routes.js';" },
        { file: 'packages/contracts/src/routes.ts', text: "import { x } from '@omc/contracts';" },
      ],
      [contracts],
    );
    expect(found).toEqual([
      ['services/game/src/a.ts', 'services/game/src/b.ts'],
      ['packages/contracts/src/index.ts', 'packages/contracts/src/routes.ts'],
    ]);
  });

  it('passes imports that go one way', () => {
    const found = findCircles(
      [
        {
          file: 'services/game/src/a.ts',
          text: "import { b } from './b.js';\nimport { R } from '@omc/contracts';",
        },
        { file: 'services/game/src/b.ts', text: "import { R } from '@omc/contracts';" },
        { file: 'packages/contracts/src/index.ts', text: 'export const R = 1;' },
      ],
      [contracts],
    );
    expect(found).toEqual([]);
  });
});

describe('docs-references', () => {
  const game: WorkspacePackage = {
    name: '@omc/game',
    dir: 'services/game',
    exports: {},
    scripts: { test: 'vitest run' },
  };
  const CLEAN: Record<string, string> = {
    'package.json': '{}',
    'README.md': lines(
      '# One Million Clicks',
      'Run `npm test`; the game is in [docs/game.md](docs/game.md).',
    ),
    'docs/performance.md': lines(
      '# Performance',
      '## When the crowd is larger than the machine: admission control',
      '**A turn, then a short queue.** At most a fixed number of clicks run at once.',
      '## Measured',
    ),
    'docs/game.md': lines(
      '# The game service',
      'The batcher (`engine/click-batcher.ts`) reads `src/config.ts` and `CLICK_QUEUE_MAX`',
      '(services/game/src/config.ts; docs/performance.md, "When the crowd is larger than the machine" and',
      '"A turn"; [admission](performance.md#when-the-crowd-is-larger-than-the-machine-admission-control)).',
      'Its tests: `pnpm --filter @omc/game test`. See [below](#the-click-path).',
      '## The click path',
    ),
    'services/game/package.json': '{}',
    'services/game/src/config.ts': lines(
      'export const config = {',
      '  /** Clicks waiting at most (docs/performance.md, "When the crowd is larger than',
      '   * the machine"). */',
      '  CLICK_QUEUE_MAX: 2000,',
      '};',
    ),
    'services/game/src/engine/click-batcher.ts': '// docs/game.md#the-click-path\nexport {};',
  };
  const tree = (changes: Record<string, string> = {}): Tree => {
    const files = { ...CLEAN, ...changes };
    return { files: Object.keys(files), read: (f) => files[f]!, packages: [game], rootScripts: ['test'] };
  };
  const findings = (changes: Record<string, string>) =>
    checkDocs(tree(changes)).map((f) => `${f.page}:${f.line}: ${f.what}`);

  it('passes a tree whose pages and comments name what exists', () => {
    expect(checkDocs(tree())).toEqual([]);
  });

  it('finds a package-relative file name in backticks that no file ends with', () => {
    expect(findings({ 'docs/planted.md': 'The batcher (`engine/click-batch.ts`, `src/gone.ts`).' })).toEqual([
      "docs/planted.md:1: file engine/click-batch.ts (no file's path ends with it)",
      "docs/planted.md:1: file src/gone.ts (no file's path ends with it)",
    ]);
  });

  it('finds a path from a top folder that does not exist', () => {
    expect(findings({ 'docs/planted.md': 'See services/game/src/gone.ts.' })).toEqual([
      'docs/planted.md:1: file services/game/src/gone.ts',
    ]);
  });

  it('finds a section reference in a code comment that names no heading', () => {
    expect(
      findings({
        'services/game/src/planted.ts':
          '/**\n * Clicks in flight (docs/performance.md,\n * "Admission").\n */',
      }),
    ).toEqual(['services/game/src/planted.ts:2: section docs/performance.md "Admission"']);
  });

  it("reads a test's comments, not its strings, which are fixtures", () => {
    const text = lines(
      '// The bound (docs/performance.md, "Admission").',
      'const fixture = \'docs/performance.md, "Admission"\';',
    );
    expect(findings({ 'services/game/test/a.test.ts': text })).toEqual([
      'services/game/test/a.test.ts:1: section docs/performance.md "Admission"',
    ]);
  });

  it('finds a section named by a part of its heading that is not the part before its subtitle', () => {
    expect(findings({ 'docs/planted.md': 'See docs/performance.md, "When the crowd".' })).toEqual([
      'docs/planted.md:1: section docs/performance.md "When the crowd"',
    ]);
  });

  it('finds an anchor, in a link or after a page name, that no heading has', () => {
    expect(
      findings({
        'docs/planted.md': '[admission](performance.md#admission), docs/performance.md#measure, [x](#nope)',
      }),
    ).toEqual([
      'docs/planted.md:1: section docs/planted.md #nope',
      'docs/planted.md:1: section docs/performance.md #admission',
      'docs/planted.md:1: section docs/performance.md #measure',
    ]);
  });

  it('finds a section reference to a page that does not exist', () => {
    expect(findings({ 'docs/planted.md': 'See docs/tuning.md, "Admission".' })).toEqual([
      'docs/planted.md:1: file docs/tuning.md',
      'docs/planted.md:1: page docs/tuning.md',
    ]);
  });

  it('finds a script and a variable that do not exist', () => {
    expect(
      findings({ 'docs/planted.md': '`npm run bench` and `pnpm --filter @omc/game bench`; `NOPE_MS=5`' }),
    ).toEqual([
      'docs/planted.md:1: script bench (root package.json)',
      'docs/planted.md:1: script bench of @omc/game',
      'docs/planted.md:1: environment variable NOPE_MS',
    ]);
  });

  it('finds a hand-written page over its size and docs/ over its whole budget', () => {
    expect(
      oversized([
        { file: 'docs/game.md', bytes: PAGE_BUDGET_BYTES + 1 },
        { file: 'docs/configuration.md', bytes: DOCS_BUDGET_BYTES - PAGE_BUDGET_BYTES },
      ]),
    ).toEqual([
      `docs/game.md is ${PAGE_BUDGET_BYTES + 1} bytes, over the ${PAGE_BUDGET_BYTES} of a page`,
      `docs/ is ${DOCS_BUDGET_BYTES + 1} bytes, over its ${DOCS_BUDGET_BYTES}`,
    ]);
  });

  it('passes pages within their sizes, the generated reference larger than a page', () => {
    expect(
      oversized([
        { file: 'docs/game.md', bytes: PAGE_BUDGET_BYTES },
        { file: 'docs/configuration.md', bytes: PAGE_BUDGET_BYTES * 2 },
      ]),
    ).toEqual([]);
  });
});
