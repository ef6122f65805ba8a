// A Docker engine for the containers suite: the one that answers, or Debian's dockerd started here (as
// root) and stopped by its PID at the end. Also picks a client that builds with BuildKit (a Docker 23+
// client needs its buildx plugin; 20.10's has BuildKit built in) and a compose command (v2 or v1).
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDebianCommands, killByPid, processAlive } from '@omc/infra';

export interface Engine {
  /** The docker client that builds (BuildKit). */
  docker: string;
  /** The compose command: ['docker', 'compose'] or ['docker-compose']. */
  compose: string[];
  /** The dockerd this suite started, or undefined if one was already answering. */
  startedPid?: number;
  serverVersion: string;
  stop(): Promise<void>;
}

export type EngineOrSkip = { engine: Engine } | { skip: string };

const isRoot = process.getuid?.() === 0;

function run(cmd: string, args: string[], timeout = 15_000) {
  return spawnSync(cmd, args, { encoding: 'utf8', timeout, env: { ...process.env, DOCKER_BUILDKIT: '1' } });
}

function serverVersion(docker: string): string | undefined {
  const probe = run(docker, ['version', '--format', '{{.Server.Version}}'], 10_000);
  return probe.status === 0 && probe.stdout.trim() ? probe.stdout.trim() : undefined;
}

/** A client that can build with BuildKit: its buildx plugin, or a pre-23 client's built-in builder. */
function buildingClient(): string | undefined {
  for (const candidate of ['docker', '/usr/bin/docker', '/usr/local/bin/docker']) {
    const version = run(candidate, ['version', '--format', '{{.Client.Version}}']);
    if (version.error || !version.stdout.trim()) continue;
    const major = Number(version.stdout.trim().split('.')[0]);
    if (major < 23 || run(candidate, ['buildx', 'version']).status === 0) return candidate;
  }
  return undefined;
}

function composeCommand(docker: string): string[] | undefined {
  if (run(docker, ['compose', 'version']).status === 0) return [docker, 'compose'];
  if (run('docker-compose', ['version']).status === 0) return ['docker-compose'];
  return undefined;
}

const stopPid = (pid: number, timeoutMs: number) => killByPid(pid, 'SIGTERM', timeoutMs);

/**
 * An engine that answers: the running one, else (as root) Debian's dockerd, installed if missing and
 * started with its log in `dir`. Returns why not where none can be had.
 */
export async function ensureEngine(dir: string, log: (line: string) => void): Promise<EngineOrSkip> {
  if (!isRoot && !serverVersion('docker'))
    return { skip: 'no Docker engine answers and only root can start one' };
  if (isRoot)
    ensureDebianCommands(
      [
        { command: 'dockerd', pkg: 'docker.io' },
        { command: 'docker-compose', pkg: 'docker-compose' },
      ],
      'The containers suite needs a Docker engine.',
      log,
    );
  const docker = buildingClient();
  if (!docker)
    return { skip: 'no docker client that builds with BuildKit (install docker.io or the buildx plugin)' };
  const compose = composeCommand(docker);
  if (!compose) return { skip: 'neither `docker compose` nor docker-compose is installed' };

  let startedPid: number | undefined;
  let version = serverVersion(docker);
  if (!version) {
    mkdirSync(dir, { recursive: true });
    const logFd = openSync(join(dir, 'dockerd.log'), 'a');
    const daemon = spawn('dockerd', [], { detached: true, stdio: ['ignore', logFd, logFd] });
    daemon.unref();
    startedPid = daemon.pid!;
    log(`[containers] started dockerd (pid ${startedPid}), log in ${join(dir, 'dockerd.log')}`);
    const deadline = Date.now() + 60_000;
    while (!version && Date.now() < deadline && processAlive(startedPid)) {
      await new Promise((r) => setTimeout(r, 500));
      version = serverVersion(docker);
    }
    if (!version) {
      await stopPid(startedPid, 10_000);
      return { skip: `dockerd did not answer within 60 s (see ${join(dir, 'dockerd.log')})` };
    }
  }
  return {
    engine: {
      docker,
      compose,
      startedPid,
      serverVersion: version,
      async stop() {
        if (startedPid) await stopPid(startedPid, 60_000);
      },
    },
  };
}
