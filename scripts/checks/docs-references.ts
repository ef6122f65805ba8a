// `npm test`'s docs reference check: a page in docs/, README.md or CONTRIBUTING.md fails when it names
// a file, a section, an npm/pnpm script or an environment variable that does not exist, and the code,
// manifests and images (a test's comments only: its strings are fixtures) fail when they name a section
// that does not exist.
// - Files: paths from the project's top folders, relative links, and file names in backticks
//   (`src/ledger/check.ts`, `engine/click-batcher.ts`): these resolve against the page's own package (the
//   one its name names: payments.md, services/payments) or else against any file of the tree whose path
//   ends with them; a name that no file's path ends with fails.
// - Sections: `docs/<page>.md, "Heading"`, `<page>.md "Heading"`, `<page>.md ("A" and "B")` and
//   `<page>.md#anchor` (links included) must name a heading of that page or a bold label opening one of its
//   paragraphs, as written, as the part before its subtitle ("Durability" for "Durability: what survives
//   what"), or as its anchor.
// - Scripts: `npm run x`, `npm start|test`, `pnpm run x`, `pnpm --filter <package> [run] x`.
// - Variables: a name set on a command line (`NAME=value`) must be one a config.ts declares, one the code
//   reads from process.env, or a standard one; an upper-case name in backticks must be such a variable or
//   a name the code, manifests or images use.
// Paths and names with a placeholder (`<service>`, `*`, `{a,b}`) are not checked.
import { readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, normalize } from 'node:path';
import ts from 'typescript';
import {
  filesUnder,
  root,
  runWhenMain,
  workspacePackages,
  type CheckReport,
  type WorkspacePackage,
} from './workspace-files.js';

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
const WRITTEN_BY_RUNS = ['web/dist', 'bench/results/partial', 'bench/results/quick', 'test-artifacts'];
/** A file name in backticks: `check.ts`, `src/ledger/check.ts:12`, `engine/`. */
const FILE_NAME =
  /^(?:[\w@.-]+\/)*[\w@-][\w@.-]*\.(?:tsx?|mts|mjs|cjs|js|json|ya?ml|md|lua|conf|sh|html|css|sql|toml)$|^(?:[\w@-][\w@.-]*\/)+$/;
/** The project's own text outside the docs: where a name the docs mention must also appear. */
const isOwnText = (file: string) =>
  /\.(ts|tsx|mts|mjs|js|lua|json|ya?ml|conf|sh|html)$/.test(file) || /^Dockerfile/.test(basename(file));

export interface Finding {
  page: string;
  line: number;
  what: string;
}

/** What the check reads: the files of the tree (relative paths), their text, and the workspace. */
export interface Tree {
  files: string[];
  read(file: string): string;
  packages: WorkspacePackage[];
  /** The root package.json's scripts. */
  rootScripts: string[];
}

/** The tree on disk: the files git tracks and the new ones it does not ignore. */
export function diskTree(): Tree {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  };
  return {
    files: filesUnder('.', () => true),
    read: (file) => readFileSync(join(root, file), 'utf8'),
    packages: workspacePackages(),
    rootScripts: Object.keys(manifest.scripts),
  };
}

const pagesOf = (tree: Tree) =>
  tree.files.filter(
    (f) => (f.startsWith('docs/') && f.endsWith('.md')) || f === 'README.md' || f === 'CONTRIBUTING.md',
  );

/** The files outside the docs whose comments may name a section, and whose text names may appear in. */
function projectFiles(tree: Tree): string[] {
  const dirs = [...tree.packages.map((pkg) => pkg.dir), 'scripts', 'k8s', 'docker'];
  return tree.files.filter(
    (f) =>
      (dirs.some((dir) => f.startsWith(`${dir}/`)) || f === 'docker-compose.yml') &&
      isOwnText(f) &&
      !f.endsWith('.lock'),
  );
}

/** Variables the config.ts files declare, the ones the code reads from process.env, the images' ARGs. */
function declaredVariables(tree: Tree): Set<string> {
  const names = new Set<string>();
  for (const file of tree.files.filter(
    (f) => f.startsWith('docker/') && basename(f).startsWith('Dockerfile'),
  ))
    for (const [, name] of tree.read(file).matchAll(/^ARG ([A-Z][A-Z0-9_]+)/gm)) names.add(name!);
  const dirs = [...tree.packages.map((pkg) => pkg.dir), 'scripts'];
  const code = tree.files.filter(
    (f) => dirs.some((dir) => f.startsWith(`${dir}/`)) && /\.(ts|mts|mjs)$/.test(f),
  );
  for (const file of code) {
    const text = tree.read(file);
    if (file.endsWith('config.ts'))
      for (const [, name] of text.matchAll(/^\s*([A-Z][A-Z0-9_]+)\??\s*:/gm)) names.add(name!);
    for (const [, name] of text.matchAll(/\benv\s*(?:\.|\[\s*['"])([A-Z][A-Z0-9_]+)/g)) names.add(name!);
  }
  return names;
}

/** `docs/a.md:12`, `services/game/src/app.ts#L3`, `web/`: the path alone. */
const cleanPath = (raw: string) =>
  raw
    .replace(/[#?].*$/, '')
    .replace(/(?::\d+)+$/, '')
    .replace(/[.,;:)'"]+$/, '');

/** A heading as written, without its markup, for comparing with a quoted name. */
const plain = (text: string) =>
  text
    .replace(/[`*_]/g, '')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
/** The anchor GitHub gives a heading. */
const slug = (text: string) =>
  plain(text)
    .replace(/[^\p{L}\p{N} _-]/gu, '')
    .replace(/ /g, '-');

/**
 * Each page's sections, as plain names and as anchors (the second "Keys" is `keys-1`): its headings, and
 * the bold labels that open a paragraph or a list item (`**Operator tools.** The admin list…`).
 */
function headingsOf(text: string): { names: Set<string>; anchors: Set<string> } {
  const names = new Set<string>();
  const anchors = new Set<string>();
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const label = /^\s*(?:[-*+]\s+|\d+\.\s+)?\*\*([^*]+?)[.:]?\*\*/.exec(line);
    if (label) names.add(plain(label[1]!));
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    names.add(plain(heading[1]!));
    let anchor = slug(heading[1]!);
    for (let n = 1; anchors.has(anchor); n++) anchor = `${slug(heading[1]!)}-${n}`;
    anchors.add(anchor);
  }
  return { names, anchors };
}

/**
 * A quoted name names a section when it is the section's name, or the part of it before its subtitle:
 * "Durability" for "Durability: what survives what", "Stopping" for "Stopping (the drain)".
 */
export const namesSection = (quoted: string, names: Set<string>): boolean => {
  const name = plain(quoted);
  return (
    names.has(name) ||
    [...names].some(
      (section) => section.startsWith(name) && /^(?:[:,;.]| \(| —| -)/.test(section.slice(name.length)),
    )
  );
};

/** Text whose lines are joined (comment markers dropped), so a reference may wrap; and each offset's line. */
function joined(text: string): { text: string; lineAt: (offset: number) => number } {
  const starts: number[] = [];
  let out = '';
  for (const line of text.split('\n')) {
    starts.push(out.length);
    out += `${line.replace(/^\s*(?:\/\/+|\/\*+|\*+\/?|#+(?=\s)|<!--|>)?\s*/, '')} `;
  }
  const lineAt = (offset: number) => {
    let line = 0;
    while (line + 1 < starts.length && starts[line + 1]! <= offset) line++;
    return line + 1;
  };
  return { text: out, lineAt };
}

/** Section references in one file: the page named (as written), the section names and anchors it gives. */
export function sectionReferences(text: string): { line: number; page: string; sections: string[] }[] {
  const { text: flat, lineAt } = joined(text);
  const found: { line: number; page: string; sections: string[] }[] = [];
  const reference =
    /(?<![\w/.-])((?:[\w.-]+\/)*[\w.-]+\.md)(?:#([\w-]+))?((?:,\s*|\s+|\s*\(\s*)["“][^"”]{1,100}["”](?:\s*(?:,|and|or)\s*["“][^"”]{1,100}["”])*)?/g;
  for (const match of flat.matchAll(reference)) {
    const [, page, anchor, quoted] = match;
    const sections = [
      ...(anchor ? [`#${anchor}`] : []),
      ...[...(quoted ?? '').matchAll(/["“]([^"”]+)["”]/g)].map(([, name]) => name!),
    ];
    if (sections.length > 0) found.push({ line: lineAt(match.index), page: page!, sections });
  }
  return found;
}

/**
 * What of a file may name a section: a test's comments alone, in place (all else blanked, lines kept),
 * since its strings are fixtures; any other file whole (a dashboard's description names one too).
 */
export function referenceText(file: string, text: string): string {
  if (!/\.test\.[mc]?[jt]sx?$/.test(file)) return text;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const ranges = new Map<number, number>();
  const collect = (node: ts.Node) => {
    for (const r of [
      ...(ts.getLeadingCommentRanges(text, node.pos) ?? []),
      ...(ts.getTrailingCommentRanges(text, node.end) ?? []),
    ])
      ranges.set(r.pos, r.end);
    ts.forEachChild(node, collect);
  };
  collect(source);
  collect(source.endOfFileToken);
  const kept = text.replace(/[^\n]/g, ' ').split('');
  for (const [pos, end] of ranges) for (let i = pos; i < end; i++) kept[i] = text[i]!;
  return kept.join('');
}

/** The markdown file a reference from `from` names: relative to it, from the root, or in docs/. */
function pageNamed(tree: Tree, from: string, page: string): string | undefined {
  const candidates = [normalize(join(dirname(from), page)), normalize(page), `docs/${page}`];
  return candidates.find((c) => tree.files.includes(c));
}

/** What a section reference names that the page does not have. */
function missingSections(
  tree: Tree,
  from: string,
  text: string,
  headings: (page: string) => ReturnType<typeof headingsOf>,
): Finding[] {
  const findings: Finding[] = [];
  for (const { line, page, sections } of sectionReferences(text)) {
    if (PLACEHOLDER.test(page)) continue;
    const target = pageNamed(tree, from, page);
    if (!target) {
      findings.push({ page: from, line, what: `page ${page}` });
      continue;
    }
    const { names, anchors } = headings(target);
    for (const section of sections) {
      const known = section.startsWith('#') ? anchors.has(section.slice(1)) : namesSection(section, names);
      if (!known)
        findings.push({
          page: from,
          line,
          what: `section ${target} ${section.startsWith('#') ? section : `"${section}"`}`,
        });
    }
  }
  return findings;
}

/** The packages a page is about: those whose folder's name is a word of the page's name. */
const subjectsOf = (tree: Tree, page: string) => {
  const words = basename(page, '.md').toLowerCase().split('-');
  return tree.packages.filter((pkg) => words.includes(basename(pkg.dir)));
};

interface Context {
  tree: Tree;
  isVariable: (name: string) => boolean;
  usedInProject: (name: string) => boolean;
  scripts: Map<string, Set<string>>;
  pathExists: (path: string) => boolean;
  fileNamed: (page: string, name: string) => boolean;
  headings: (page: string) => ReturnType<typeof headingsOf>;
}

function context(tree: Tree): Context {
  const variables = declaredVariables(tree);
  const text = projectFiles(tree)
    .map((f) => tree.read(f))
    .join('\n');
  const files = new Set(tree.files);
  const dirs = new Set(
    tree.files.flatMap((f) =>
      f
        .split('/')
        .slice(0, -1)
        .map((_, i, parts) => parts.slice(0, i + 1).join('/')),
    ),
  );
  const packageDirs = tree.packages.map((pkg) => pkg.dir);
  const existsAt = (path: string) => files.has(path) || dirs.has(path.replace(/\/$/, ''));
  // A package's page may name its files from the package's folder (web.md: scripts/prerender.mjs).
  const pathExists = (path: string) =>
    WRITTEN_BY_RUNS.some((built) => path === built || path.startsWith(`${built}/`)) ||
    ['', ...packageDirs].some((dir) => existsAt(normalize(join(dir, path))));
  const headingCache = new Map<string, ReturnType<typeof headingsOf>>();
  const headings = (page: string) => {
    if (!headingCache.has(page)) headingCache.set(page, headingsOf(tree.read(page)));
    return headingCache.get(page)!;
  };
  const fileNamed = (page: string, name: string) => {
    const own = subjectsOf(tree, page).flatMap((pkg) => [pkg.dir, `${pkg.dir}/src`]);
    if (own.some((dir) => existsAt(normalize(join(dir, name))))) return true;
    const suffix = `/${name.replace(/\/$/, '')}`;
    return (
      pathExists(name) ||
      tree.files.some((f) => f.endsWith(suffix) || (name.endsWith('/') && f.includes(`${suffix}/`)))
    );
  };
  const scripts = new Map<string, Set<string>>([['', new Set(tree.rootScripts)]]);
  for (const pkg of tree.packages) scripts.set(pkg.name, new Set(Object.keys(pkg.scripts)));
  return {
    tree,
    isVariable: (name) =>
      variables.has(name) ||
      STANDARD_VARIABLES.has(name) ||
      STANDARD_PREFIXES.some((p) => name.startsWith(p)),
    usedInProject: (name) => new RegExp(`\\b${name}\\b`).test(text),
    scripts,
    pathExists,
    fileNamed,
    headings,
  };
}

/** The files one line of a page names that do not exist. */
function missingFiles(ctx: Context, page: string, line: string): string[] {
  const missing: string[] = [];
  const topPath = new RegExp(`(?<![\\w./-])((?:${TOP_FOLDERS.join('|')})/[\\w./@:#-]*)`, 'g');
  for (const [, raw] of line.matchAll(topPath)) {
    const path = cleanPath(raw!);
    if (PLACEHOLDER.test(line.slice(line.indexOf(raw!), line.indexOf(raw!) + raw!.length + 1))) continue;
    if (path.includes('//') || !/\//.test(path)) continue;
    if (!ctx.pathExists(path)) missing.push(`file ${path}`);
  }
  for (const [, raw] of line.matchAll(/`([^`\s]+)`/g)) {
    const name = cleanPath(raw!.replace(/^\.\//, ''));
    if (!FILE_NAME.test(name) || /^[a-z]+:/.test(raw!) || name.startsWith('.') || PLACEHOLDER.test(raw!))
      continue;
    if (ROOT_FILES.test(name)) {
      if (!ctx.pathExists(name)) missing.push(`file ${name}`);
    } else if (!TOP_FOLDERS.some((top) => name.startsWith(`${top}/`)) && !ctx.fileNamed(page, name))
      missing.push(`file ${name} (no file's path ends with it)`);
  }
  // Relative links: [text](operations.md) from a page in docs/ is docs/operations.md.
  for (const [, raw] of line.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(raw!) || raw!.startsWith('#')) continue;
    const path = normalize(join(dirname(page), cleanPath(raw!)));
    if (!PLACEHOLDER.test(raw!) && !ctx.pathExists(path)) missing.push(`file ${path}`);
  }
  return missing;
}

/** The scripts and variables one line of a page names that do not exist. */
function missingNames(ctx: Context, line: string): string[] {
  const missing: string[] = [];
  const rootScripts = ctx.scripts.get('')!;
  for (const [, name] of line.matchAll(/(?:^|[\s`(])(?:npm|pnpm) run ([\w:.-]+)/g))
    if (!rootScripts.has(name!)) missing.push(`script ${name} (root package.json)`);
  for (const [, name] of line.matchAll(/\bnpm (start|test)\b/g))
    if (!rootScripts.has(name!)) missing.push(`script ${name} (root package.json)`);
  for (const [, pkg, name] of line.matchAll(/pnpm --filter ([@\w/.-]+) (?:run )?([\w:.-]+)/g)) {
    if (['exec', 'install', 'add', 'deploy', 'why', 'list'].includes(name!)) continue;
    const own = ctx.scripts.get(pkg!);
    if (!own) missing.push(`package ${pkg}`);
    else if (!own.has(name!)) missing.push(`script ${name} of ${pkg}`);
  }
  for (const [, name] of line.matchAll(/(?:^|[\s`(])([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)=/g))
    if (!ctx.isVariable(name!)) missing.push(`environment variable ${name}`);
  for (const [, name] of line.matchAll(/`([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)`/g))
    if (!ctx.isVariable(name!) && !ctx.usedInProject(name!))
      missing.push(`name ${name} (no variable, nothing in the code)`);
  return missing;
}

/** Every reference to nothing in the tree's pages, and every section reference to nothing in its code. */
export function checkDocs(tree: Tree = diskTree()): Finding[] {
  const ctx = context(tree);
  const findings: Finding[] = [];
  for (const page of pagesOf(tree)) {
    const text = tree.read(page);
    const { anchors } = ctx.headings(page);
    text.split('\n').forEach((line, at) => {
      const report = (what: string) => findings.push({ page, line: at + 1, what });
      for (const what of [...missingFiles(ctx, page, line), ...missingNames(ctx, line)]) report(what);
      for (const [, anchor] of line.matchAll(/\]\(#([\w-]+)\)/g))
        if (!anchors.has(anchor!)) report(`section ${page} #${anchor}`);
    });
    findings.push(...missingSections(tree, page, text, ctx.headings));
  }
  for (const file of projectFiles(tree))
    findings.push(...missingSections(tree, file, referenceText(file, tree.read(file)), ctx.headings));
  return findings.sort((a, b) => a.page.localeCompare(b.page) || a.line - b.line);
}

/** docs/ as a whole (the generated configuration reference included), and each hand-written page. */
export const DOCS_BUDGET_BYTES = 250_000;
export const PAGE_BUDGET_BYTES = 30_000;
const GENERATED_PAGES = new Set(['docs/configuration.md']);

/** What of the given docs files (each with its size) is over the docs' size budgets. */
export function oversized(files: { file: string; bytes: number }[]): string[] {
  const over = files
    .filter(({ file, bytes }) => !GENERATED_PAGES.has(file) && bytes > PAGE_BUDGET_BYTES)
    .map(({ file, bytes }) => `${file} is ${bytes} bytes, over the ${PAGE_BUDGET_BYTES} of a page`);
  const total = files.reduce((sum, { bytes }) => sum + bytes, 0);
  if (total > DOCS_BUDGET_BYTES) over.push(`docs/ is ${total} bytes, over its ${DOCS_BUDGET_BYTES}`);
  return over;
}

/** What is over the docs' size budgets (CONTRIBUTING.md, "Docs"). */
export const checkDocsSize = (): string[] =>
  oversized(filesUnder('docs', () => true).map((file) => ({ file, bytes: statSync(join(root, file)).size })));

/** The check over the docs and the project's files. */
export function checkDocsReferences(): CheckReport {
  const tree = diskTree();
  const findings = [...new Map(checkDocs(tree).map((f) => [`${f.page}:${f.line}: ${f.what}`, f])).keys()];
  const oversize = checkDocsSize();
  return {
    lines: [
      ...findings.map((finding) => `${finding} does not exist`),
      ...oversize,
      `${pagesOf(tree).length} pages, ${findings.length} reference(s) to nothing, ${oversize.length} over the size budget`,
    ],
    failed: findings.length + oversize.length > 0,
  };
}

runWhenMain(import.meta.filename, checkDocsReferences);
