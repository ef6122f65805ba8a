// docker-compose.yml, checked by Debian's docker-compose (`config -q` parses, interpolates and validates
// the file against the Compose schema without an engine) and read as data for the suite's own checks.
// Where docker-compose is missing it is installed with apt-get when running as root; otherwise the suite
// fails with what to install, never passes without the check.
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureDockerCompose as installDockerCompose } from '@omc/infra';
import { ROOT } from './repo.js';
import { loadYaml } from './yaml.js';

export const COMPOSE_FILE = join(ROOT, 'docker-compose.yml');

/** The docker-compose binary's version line, installing Debian's package when it is missing. */
export function ensureDockerCompose(log: (line: string) => void): string {
  installDockerCompose(log);
  return execFileSync('docker-compose', ['version', '--short'], { encoding: 'utf8' }).trim();
}

export function composeConfig(args: string[] = ['-q']): { status: number; stdout: string; stderr: string } {
  // No variables from this machine's environment leak into the check: the file's defaults are what count.
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME };
  const result = spawnSync(
    'docker-compose',
    ['--project-directory', ROOT, '-f', COMPOSE_FILE, 'config', ...args],
    { encoding: 'utf8', env },
  );
  return { status: result.status ?? 1, stdout: result.stdout, stderr: result.stderr };
}

export interface ComposeService {
  image?: string;
  build?: { context: string; dockerfile: string; target?: string; args?: Record<string, string> };
  command?: string[] | string;
  environment?: Record<string, string | number | null>;
  expose?: (string | number)[];
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] | string };
  init?: boolean;
  shm_size?: string;
  read_only?: boolean;
  tmpfs?: string[];
  cap_drop?: string[];
  security_opt?: string[];
  user?: string;
}

export interface ComposeFile {
  services: Record<string, ComposeService>;
  volumes?: Record<string, unknown>;
}

/** The file as written (merge keys resolved), before interpolation. */
export function readCompose(): ComposeFile {
  return loadYaml<ComposeFile>(COMPOSE_FILE);
}

/** `${NAME:-default}` as docker compose resolves it when NAME is not set. */
export function interpolateDefaults(value: string): string {
  return value.replace(/\$\{(\w+)(?::?-([^}]*))?\}/g, (_m, _name, fallback) => fallback ?? '');
}
