// `npm test`'s docs reference check: a page in docs/, README.md or CONTRIBUTING.md fails when it names
// a file, an npm/pnpm script or an environment variable that does not exist. Files: paths from the
// project's top folders and relative links. Scripts: `npm run x`, `npm start|test`, `pnpm run x`,
// `pnpm --filter <package> [run] x`. Variables: a name set on a command line (`NAME=value`) must be one a
// config.ts declares, one the code reads from process.env, or a standard one; an upper-case name in
// backticks must be such a variable or a name the code, manifests or images use. Paths and names with a
// placeholder (`<service>`, `*`, `{a,b}`) are not checked.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { filesUnder, root, workspacePackages } from './workspace-files.js';

/** Variables of the platform and its tools, which no config.ts of ours declares. */
const STANDARD_VARIABLES = new Set([
  'NODE_ENV',
  'NODE_OPTIONS',
  'PATH',
  'HOME',
  'CI',
  'DOCKER_BUILDKIT',
  'NO_COLOR',
]);
/** Families of standard variables: OpenTelemetry's SDK reads the OTEL_* ones itself. */
const STANDARD_PREFIXES = ['OTEL_'];

const TOP_FOLDERS = [
  'packages',
  'services',
  'gateway',
  'web',
  'tests',
  'bench',
  'k8s',
  'docker',
  'docs',
  'scripts',
];
const ROOT_FILES =
  /^(?:README\.md|CONTRIBUTING\.md|LICENSE|docker-compose\.yml|package\.json|pnpm-workspace\.yaml|pnpm-lock\.yaml|tsconfig\.base\.json|eslint\.config\.js)$/;
const PLACEHOLDER = /[<>*{}$…]|\.\.\.|XXX/;
/** What a build or a run writes (ignored by git): named by the docs, absent from a fresh clone. */
const WRITTEN_BY_RUNS = ['web/dist', 'bench/results/partial', 'bench/results/quick'];

export interface Finding {
  page: string;
  line: number;
  what: string;
}

const pages = () => [...filesUnder('docs', (name) => name.endsWith('.md')), 'README.md', 'CONTRIBUTING.md'];

/** The project's own text outside the docs: where a name the docs mention must also appear. */
function projectText(): string {
  const own = (name: string) =>
    /\.(ts|tsx|mts|mjs|js|lua|json|ya?ml|conf|sh|html)$/.test(name) || /^Dockerfile/.test(name);
  const dirs = [...workspacePackages().map((pkg) => pkg.dir), 'scripts', 'k8s', 'docker'];
  const files = [...new Set(dirs.flatMap((dir) => filesUnder(dir, own)))].filter((f) => !f.endsWith('.lock'));
  files.push('docker-compose.yml');
  return files.map((file) => readFileSync(join(root, file), 'utf8')).join('\n');
}

/** Variables the config.ts files declare, the ones the code reads from process.env, the images' ARGs. */
function declaredVariables(): Set<string> {
  const names = new Set<string>();
  for (const file of filesUnder('docker', (name) => name.startsWith('Dockerfile')))
    for (const [, name] of readFileSync(join(root, file), 'utf8').matchAll(/^ARG ([A-Z][A-Z0-9_]+)/gm))
      names.add(name!);
  const dirs = [...workspacePackages().map((pkg) => pkg.dir), 'scripts'];
  for (const file of dirs.flatMap((dir) => filesUnder(dir, (name) => /\.(ts|mts|mjs)$/.test(name)))) {
    const text = readFileSync(join(root, file), 'utf8');
    if (file.endsWith('config.ts'))
      for (const [, name] of text.matchAll(/^\s*([A-Z][A-Z0-9_]+)\??\s*:/gm)) names.add(name!);
    for (const [, name] of text.matchAll(/\benv\s*(?:\.|\[\s*['"])([A-Z][A-Z0-9_]+)/g)) names.add(name!);
  }
  return names;
}

function scriptsOf(): Map<string, Set<string>> {
  const scripts = new Map<string, Set<string>>();
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  scripts.set('', new Set(Object.keys(rootManifest.scripts)));
  for (const pkg of workspacePackages()) scripts.set(pkg.name, new Set(Object.keys(pkg.scripts)));
  return scripts;
}

/** `docs/a.md:12`, `services/game/src/app.ts#L3`, `web/`: the path alone. */
const cleanPath = (raw: string) =>
  raw
    .replace(/[#?].*$/, '')
    .replace(/(?::\d+)+$/, '')
    .replace(/[.,;:)'"]+$/, '');

export function checkDocs(): Finding[] {
  const variables = declaredVariables();
  const isVariable = (name: string) =>
    variables.has(name) || STANDARD_VARIABLES.has(name) || STANDARD_PREFIXES.some((p) => name.startsWith(p));
  const text = projectText();
  const usedInProject = (name: string) => new RegExp(`\\b${name}\\b`).test(text);
  const scripts = scriptsOf();
  const packageDirs = workspacePackages().map((pkg) => join(root, pkg.dir));
  const findings: Finding[] = [];

  for (const page of pages()) {
    const lines = readFileSync(join(root, page), 'utf8').split('\n');
    lines.forEach((line, at) => {
      const report = (what: string) => findings.push({ page, line: at + 1, what });
      // A package's page may name its files from the package's folder (web.md: scripts/prerender.mjs).
      const pathExists = (path: string) =>
        WRITTEN_BY_RUNS.some((built) => path === built || path.startsWith(`${built}/`)) ||
        [root, ...packageDirs].some((dir) => existsSync(join(root, relative(root, dir), path)));

      const topPath = new RegExp(`(?<![\\w./-])((?:${TOP_FOLDERS.join('|')})/[\\w./@:#-]*)`, 'g');
      for (const [, raw] of line.matchAll(topPath)) {
        const path = cleanPath(raw!);
        if (PLACEHOLDER.test(line.slice(line.indexOf(raw!), line.indexOf(raw!) + raw!.length + 1))) continue;
        if (path.includes('//') || !/\//.test(path)) continue;
        if (!pathExists(path)) report(`file ${path}`);
      }
      for (const [, raw] of line.matchAll(/`([\w.-]+\.(?:md|ya?ml|json|js))`/g))
        if (ROOT_FILES.test(raw!) && !pathExists(raw!)) report(`file ${raw}`);
      // Relative links: [text](operations.md) from a page in docs/ is docs/operations.md.
      for (const [, raw] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^[a-z]+:/.test(raw!) || raw!.startsWith('#')) continue;
        const path = normalize(join(dirname(page), cleanPath(raw!)));
        if (!PLACEHOLDER.test(raw!) && !pathExists(path)) report(`file ${path}`);
      }

      for (const [, name] of line.matchAll(/(?:^|[\s`(])(?:npm|pnpm) run ([\w:.-]+)/g))
        if (!scripts.get('')!.has(name!)) report(`script ${name} (root package.json)`);
      for (const [, name] of line.matchAll(/\bnpm (start|test)\b/g))
        if (!scripts.get('')!.has(name!)) report(`script ${name} (root package.json)`);
      for (const [, pkg, name] of line.matchAll(/pnpm --filter ([@\w/.-]+) (?:run )?([\w:.-]+)/g)) {
        if (['exec', 'install', 'add', 'deploy', 'why', 'list'].includes(name!)) continue;
        const own = scripts.get(pkg!);
        if (!own) report(`package ${pkg}`);
        else if (!own.has(name!)) report(`script ${name} of ${pkg}`);
      }

      for (const [, name] of line.matchAll(/(?:^|[\s`(])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/g))
        if (!isVariable(name!)) report(`environment variable ${name}`);
      for (const [, name] of line.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g))
        if (!isVariable(name!) && !usedInProject(name!))
          report(`name ${name} (no variable, nothing in the code)`);
    });
  }
  return findings;
}

/** docs/ as a whole (the generated configuration reference included), and each hand-written page. */
export const DOCS_BUDGET_BYTES = 250_000;
export const PAGE_BUDGET_BYTES = 30_000;
const GENERATED_PAGES = new Set(['docs/configuration.md']);

/** What is over the docs' size budgets (CONTRIBUTING.md, "Docs"). */
export function checkDocsSize(): string[] {
  const files = filesUnder('docs', () => true);
  const size = (file: string) => statSync(join(root, file)).size;
  const over = files
    .filter((file) => !GENERATED_PAGES.has(file) && size(file) > PAGE_BUDGET_BYTES)
    .map((file) => `${file} is ${size(file)} bytes, over the ${PAGE_BUDGET_BYTES} of a page`);
  const total = files.reduce((sum, file) => sum + size(file), 0);
  if (total > DOCS_BUDGET_BYTES) over.push(`docs/ is ${total} bytes, over its ${DOCS_BUDGET_BYTES}`);
  return over;
}

if (process.argv[1] && relative(root, process.argv[1]).startsWith('scripts/checks/docs-references')) {
  const findings = [...new Map(checkDocs().map((f) => [`${f.page}:${f.line}: ${f.what}`, f])).keys()];
  for (const finding of findings) console.log(`${finding} does not exist`);
  const oversize = checkDocsSize();
  for (const finding of oversize) console.log(finding);
  console.log(
    `${pages().length} pages, ${findings.length} reference(s) to nothing, ${oversize.length} over the size budget`,
  );
  process.exit(findings.length + oversize.length > 0 ? 1 : 0);
}
